// page.js runs in an isolated world of the page's main frame (never in the
// page's own world, so page scripts can neither see nor break it). It builds
// the accessibility outline, keeps the ref -> element map and performs the
// DOM-side halves of the tools. It installs itself once per document as
// globalThis.__hermes; every call re-sends it guarded, so a fresh document
// (navigation) gets a fresh instance with no stale state.
//
// Why in-page JavaScript instead of CDP Accessibility.getFullAXTree: on a
// 1,000-row page the full AX tree is 17,000 nodes and 8 MB of JSON taking
// 0.7-1.7 s, while this walk takes ~100 ms and stops as soon as the size cap
// is reached. The roles and names follow HTML-AAM implicit roles and the
// accessible-name computation (the parts pages actually use), as Playwright's
// aria snapshot does.
(function (startAt) {
  if (globalThis.__hermes) return globalThis.__hermes;

  const INTERACTIVE = new Set([
    'button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox',
    'listbox', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'slider', 'spinbutton', 'switch', 'tab', 'treeitem', 'clickable',
  ]);
  // Containers kept in the interactive outline: they tell the model where a
  // control sits (which form, which dialog, which frame) for a few bytes.
  const CONTEXT = new Set([
    'navigation', 'main', 'banner', 'contentinfo', 'complementary', 'form',
    'dialog', 'alertdialog', 'region', 'search', 'iframe', 'heading', 'alert',
  ]);
  // Roles whose accessible name comes from their content; their text
  // children are not repeated under them.
  const NAME_FROM_CONTENT = new Set([
    'button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'option',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem',
    'checkbox', 'radio', 'switch', 'tooltip', 'clickable', 'row', 'gridcell',
  ]);
  // Elements whose text is a block of its own: name-from-content text gets
  // a space at their edges, so cells do not run together ("0Item 0").
  const BLOCK_TAGS = new Set([
    'br', 'p', 'div', 'td', 'th', 'tr', 'li', 'dt', 'dd', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
    'section', 'article', 'table', 'ul', 'ol', 'pre', 'blockquote', 'header', 'footer', 'nav',
  ]);
  // Roles a click handler or a pointer cursor turns into a control: the
  // content roles, not the containers that only give context.
  const PROMOTABLE = new Set([
    'listitem', 'paragraph', 'cell', 'gridcell', 'columnheader', 'rowheader',
    'img', 'figure', 'article', 'blockquote', 'group', 'term', 'definition',
  ]);
  // Table parts that a page may use for layout rather than data.
  const LAYOUT_ROLES = new Set(['row', 'cell', 'columnheader', 'rowheader']);
  // A row lists at most this many controls on its own line; a row with
  // more is a form in a table, better read a control per line.
  const ROW_LINE_MAX = 12;
  // Text runs of the full outline are wrapped into lines of about this
  // many characters.
  const TEXT_LINE = 500;
  // Roles whose text a page changes to report something (a status line,
  // an error): the view an action's changes come from names them.
  const LIVE = new Set(['status', 'alert', 'log', 'marquee', 'timer']);
  const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title']);
  const LANDMARK_SCOPE = new Set(['article', 'aside', 'main', 'nav', 'section']);

  const refs = new Map();      // "e12" -> Element
  const ids = new WeakMap();   // Element -> "e12"
  let next = startAt;
  const first = startAt;
  let last = [];               // refs listed by the latest snapshot, for annotate

  function norm(s) { return (s || '').replace(/\s+/g, ' ').trim(); }
  function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + '…' : s; }
  function quote(s) { return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"'; }

  function refOf(el) {
    let id = ids.get(el);
    if (!id) { id = 'e' + (next++); ids.set(el, id); }
    refs.set(id, el);
    return id;
  }

  function inputRole(el) {
    const ty = (el.getAttribute('type') || 'text').toLowerCase();
    switch (ty) {
      case 'button': case 'submit': case 'reset': case 'image': case 'file': return 'button';
      case 'checkbox': return el.getAttribute('switch') !== null ? 'switch' : 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'hidden': return null;
      case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
      default: return el.hasAttribute('list') ? 'combobox' : 'textbox';
    }
  }

  function inLandmarkScope(el) {
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (LANDMARK_SCOPE.has(p.localName)) return true;
    }
    return false;
  }

  function roleOf(el) {
    const explicit = el.getAttribute('role');
    if (explicit) {
      const r = explicit.trim().split(/\s+/)[0].toLowerCase();
      if (r === 'none' || r === 'presentation') return null;
      if (r) return r;
    }
    switch (el.localName) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : null;
      case 'button': case 'summary': return 'button';
      case 'input': return inputRole(el);
      case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'option': return 'option';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'img': return el.getAttribute('alt') === '' ? null : 'img';
      case 'svg': return el.getAttribute('aria-label') ? 'img' : null;
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'aside': return 'complementary';
      case 'header': return inLandmarkScope(el) ? null : 'banner';
      case 'footer': return inLandmarkScope(el) ? null : 'contentinfo';
      case 'form': return 'form';
      case 'search': return 'search';
      case 'section': return (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) ? 'region' : null;
      case 'dialog': return 'dialog';
      case 'table': return 'table';
      case 'tr': return 'row';
      case 'td': return 'cell';
      case 'th': return 'columnheader';
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'li': return 'listitem';
      case 'p': return 'paragraph';
      case 'fieldset': case 'details': return 'group';
      case 'iframe': case 'frame': return 'iframe';
      case 'progress': return 'progressbar';
      case 'meter': return 'meter';
      case 'hr': return 'separator';
      case 'article': return 'article';
      case 'blockquote': return 'blockquote';
      case 'figure': return 'figure';
      case 'label': return null;
    }
    if (el.isContentEditable && el.hasAttribute('contenteditable')) return 'textbox';
    return null;
  }

  // textOf is the "name from content" text: text nodes, alt text of images,
  // through open shadow roots, skipping aria-hidden subtrees.
  // skip is an element to leave out, or a function saying which to.
  function textOf(node, budget, skip) {
    let out = '';
    const walk = (n) => {
      if (out.length > budget) return;
      if (n.nodeType === 3) { out += n.data; return; }
      if (n.nodeType !== 1 && n.nodeType !== 11) return;
      if (n.nodeType === 1) {
        if (n === skip || (typeof skip === 'function' && n !== node && skip(n))) return;
        if (SKIP_TAGS.has(n.localName) || n.getAttribute('aria-hidden') === 'true') return;
        if (n.localName === 'img') { out += ' ' + (n.getAttribute('alt') || '') + ' '; return; }
        if (n.localName === 'input' && n !== node) { out += ' ' + (n.value || '') + ' '; return; }
        const lab = n !== node && n.getAttribute('aria-label');
        if (lab) { out += ' ' + lab + ' '; return; }
        if (n.shadowRoot) { for (const c of n.shadowRoot.childNodes) walk(c); return; }
        if (BLOCK_TAGS.has(n.localName)) { out += ' '; for (const c of n.childNodes) walk(c); out += ' '; return; }
      }
      for (const c of n.childNodes) walk(c);
    };
    walk(node);
    return norm(out);
  }

  function byIds(el, attr) {
    const list = (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean);
    if (!list.length) return '';
    const root = el.getRootNode();
    return norm(list.map((id) => {
      const t = root.getElementById ? root.getElementById(id) : null;
      return t ? (t.getAttribute('aria-label') || textOf(t, 200)) : '';
    }).join(' '));
  }

  // rowName is a table row's own text: its cells' text without the text
  // of the controls in them, which the row's line lists with their refs.
  function rowName(el) {
    let n = byIds(el, 'aria-labelledby') || norm(el.getAttribute('aria-label'));
    if (n) return n;
    return textOf(el, Infinity, (c) => {
      const r = roleOf(c);
      return (r && INTERACTIVE.has(r)) || c.localName === 'select' || c.localName === 'textarea';
    });
  }

  function utf8Len(s) {
    let n = s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c < 0xdc00) { n += 1; i++; } // a surrogate pair: 4 bytes for 2 units
      else if (c >= 0x800) n += 2;
      else if (c >= 0x80) n += 1;
    }
    return n;
  }

  // jsonLen is the bytes s takes inside a JSON string as the result is
  // encoded (Go's encoding/json without HTML escaping): quotes, backslashes
  // and control characters are escaped, U+2028/U+2029 too.
  function jsonLen(s) {
    let n = utf8Len(s);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 34 || c === 92 || c === 10 || c === 13 || c === 9 || c === 8 || c === 12) n += 1;
      else if (c < 0x20) n += 5;
      else if (c === 0x2028 || c === 0x2029) n += 3;
    }
    return n;
  }

  // nameOf computes el's accessible name; budget bounds name-from-content
  // text (the full outline passes Infinity for non-controls).
  function nameOf(el, role, budget) {
    let n = byIds(el, 'aria-labelledby');
    if (n) return n;
    n = norm(el.getAttribute('aria-label'));
    if (n) return n;
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      const ty = (el.getAttribute('type') || '').toLowerCase();
      if (tag === 'input' && (ty === 'submit' || ty === 'reset' || ty === 'button')) {
        return norm(el.value) || (ty === 'submit' ? 'Submit' : ty === 'reset' ? 'Reset' : '');
      }
      if (tag === 'input' && ty === 'image') return norm(el.getAttribute('alt')) || 'Submit';
      if (el.labels && el.labels.length) {
        n = norm(Array.from(el.labels, (l) => textOf(l, 200, el)).join(' '));
        if (n) return n;
      }
      return norm(el.getAttribute('placeholder')) || norm(el.getAttribute('title'));
    }
    if (tag === 'img' || tag === 'area') return norm(el.getAttribute('alt')) || norm(el.getAttribute('title'));
    if (tag === 'fieldset') { const l = el.querySelector(':scope > legend'); if (l) return textOf(l, 200); }
    if (tag === 'table') { const c = el.querySelector(':scope > caption'); if (c) return textOf(c, 200); }
    if (tag === 'iframe' || tag === 'frame') return norm(el.getAttribute('title')) || norm(el.getAttribute('name'));
    if (NAME_FROM_CONTENT.has(role)) {
      n = textOf(el, budget || 300);
      if (n) return n;
    }
    return norm(el.getAttribute('title'));
  }

  function isHiddenSubtree(el) {
    if (el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert') || el.hidden) return true;
    if (el.checkVisibility && !el.checkVisibility()) {
      // display:contents has no box, yet its children render.
      const cs = getComputedStyle(el);
      return cs.display !== 'contents';
    }
    return false;
  }

  // modalOf is the open modal dialog of el's document, if any: while one
  // is open, everything outside it is inert, with no attribute saying so.
  function modalOf(doc) {
    try { return doc.querySelector(':modal'); } catch (e) { return null; }
  }

  // unreachable says why a person could not see or operate el, or ''.
  // Subtrees that render nothing (display:none, aria-hidden, inert) never
  // get here; this is about the control itself.
  function unreachable(el) {
    const cs = getComputedStyle(el);
    if (cs.visibility !== 'visible') return 'hidden (visibility: ' + cs.visibility + ')';
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return 'hidden (it has no size)';
    const w = el.ownerDocument.defaultView;
    // Left of or above the page's origin: no scrolling brings it into view.
    if (r.right + w.scrollX <= 0 || r.bottom + w.scrollY <= 0) return 'off-screen (placed outside the page)';
    return '';
  }

  // hasVisibleLabel: a control styled away behind its label (a custom
  // checkbox) is still operated through that label.
  function hasVisibleLabel(el) {
    return !!(el.labels && Array.from(el.labels).some((l) => !unreachable(l)));
  }

  // clickBlock says why a click on el would not reach it, or ''.
  function clickBlock(el) {
    if (el.matches(':disabled')) return 'disabled';
    // aria-disabled covers the element and everything inside it; the page
    // shows it disabled and its handlers are written to ignore it.
    if (el.closest('[aria-disabled="true"]')) return 'disabled (aria-disabled)';
    if (el.closest('[inert]')) return 'inert (the page blocks input to it)';
    const modal = modalOf(el.ownerDocument);
    if (modal && !modal.contains(el)) return 'behind a modal dialog (only the dialog takes input until it is closed)';
    if (el.checkVisibility && !el.checkVisibility()) return 'hidden (display: none)';
    const why = unreachable(el);
    if (why && !hasVisibleLabel(el)) return why;
    if (getComputedStyle(el).pointerEvents === 'none') return 'not clickable (pointer-events: none)';
    return '';
  }

  function states(el, role, full) {
    let s = '';
    const a = (n) => el.getAttribute(n);
    if (role === 'heading' && full) {
      // Only the full outline gives levels: the interactive one lists
      // headings as signposts, not as a document structure.
      const lv = a('aria-level') || (/^h[1-6]$/.test(el.localName) ? el.localName[1] : '');
      if (lv) s += ' [level=' + lv + ']';
    }
    if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
      const c = a('aria-checked');
      if (c === 'mixed' || el.indeterminate) s += ' [checked=mixed]';
      else if (c === 'true' || (c === null && el.checked)) s += ' [checked]';
    }
    if (a('aria-pressed') === 'true') s += ' [pressed]';
    if (a('aria-expanded') !== null) s += a('aria-expanded') === 'true' ? ' [expanded]' : ' [collapsed]';
    if (a('aria-selected') === 'true' || (role === 'option' && el.selected)) s += ' [selected]';
    if (el.disabled || el.closest('[aria-disabled="true"]')) s += ' [disabled]';
    if (el.required || a('aria-required') === 'true') s += ' [required]';
    if (role === 'textbox' || role === 'searchbox' || role === 'spinbutton' || role === 'slider' || role === 'combobox') {
      let v = el.localName === 'select'
        ? (el.selectedOptions && el.selectedOptions.length ? norm(el.selectedOptions[0].textContent) : '')
        : (typeof el.value === 'string' ? el.value : (el.isContentEditable ? el.innerText : ''));
      if (el.type === 'password' && v) v = '••••';
      v = norm(v);
      if (v) s += ' [value=' + quote(clip(v, 80)) + ']';
    }
    if (el.localName === 'select' && !el.multiple) {
      const opts = Array.from(el.options, (o) => clip(norm(o.label || o.textContent), 40));
      if (opts.length) s += ' [options: ' + opts.slice(0, 25).join(' | ') + (opts.length > 25 ? ' | …' : '') + ']';
    }
    if (full && role === 'link') {
      const href = el.getAttribute('href') || '';
      if (href && !href.startsWith('javascript:')) s += ' [url=' + clip(href, 120) + ']';
    }
    return s;
  }

  // isClickable finds controls that have no interactive role: onclick
  // handlers, tabindex and cursor:pointer set on the element itself (not
  // inherited from a clickable ancestor).
  function isClickable(el, parentPointer) {
    if (el.hasAttribute('onclick')) return true;
    const ti = el.getAttribute('tabindex');
    if (ti !== null && +ti >= 0) return true;
    return !parentPointer && el.__hermesPointer;
  }

  // snapshot builds the whole outline of the page (or of opts.selector's
  // subtree) as lines, then returns the part that fits opts.budget bytes
  // starting at line opts.offset. Every line left out is counted, so the
  // caller can say exactly what is missing and how to get it.
  function snapshot(opts) {
    const full = !!opts.full;
    // texts: the interactive outline plus the page's text runs, the view
    // an action's changes are computed from (a new comment or status line
    // is a change the model must see, though no snapshot lists it).
    const texts = full || !!opts.texts;
    const budget = opts.budget > 0 ? opts.budget : 8000;
    const offset = opts.offset > 0 ? opts.offset : 0;
    // The walk itself stops at this much outline, so a monstrous page
    // cannot stall the tab; the result then says the totals are partial.
    const WALK_CAP = 4000000;
    let used = 0, walkCut = false, skippedFrames = 0;
    last = [];

    function children(node) {
      if (node.nodeType === 1 && node.shadowRoot) return node.shadowRoot.childNodes;
      if (node.nodeType === 1 && node.localName === 'slot') {
        const as = node.assignedNodes({ flatten: true });
        return as.length ? as : node.childNodes;
      }
      return node.childNodes;
    }

    // refsOnly keeps the entries that carry refs, lifting them out of
    // containers that do not: a name-from-content container (a row, a
    // cell, a heading) already says its text, but must not swallow the
    // controls inside it.
    function refsOnly(list) {
      const out = [];
      for (const e of list) {
        if (e.ids.length) { e.c = refsOnly(e.c); out.push(e); } else for (const k of refsOnly(e.c)) out.push(k);
      }
      return out;
    }

    // textShown says whether node's own text runs are seen: an element
    // made visibility:hidden or transparent hides its text, though a child
    // may show itself again (which its own walk decides).
    function textShown(node) {
      if (node.nodeType !== 1 || !node.checkVisibility) return true;
      return node.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    }

    function walkKids(node, parentPointer) {
      const out = [];
      let text = '';
      let shown;
      const flush = () => {
        const t = norm(text);
        text = '';
        if (t && texts) {
          used += t.length + 8;
          for (const part of wrap(t)) out.push({ t: 'text: ' + part, c: [], ids: [], k: 'text' });
        }
      };
      for (const c of children(node)) {
        if (used > WALK_CAP) { walkCut = true; break; }
        if (c.nodeType === 3) {
          if (shown === undefined) shown = !texts || textShown(node);
          if (shown) text += c.data;
          continue;
        }
        if (c.nodeType !== 1) continue;
        const got = walkEl(c, parentPointer);
        if (got.inlineText !== undefined) { text += ' ' + got.inlineText + ' '; continue; }
        if (got.entries.length) flush();
        for (const e of got.entries) out.push(e);
      }
      flush();
      return out;
    }

    function walkEl(el, parentPointer) {
      if (SKIP_TAGS.has(el.localName)) return { entries: [] };
      if (isHiddenSubtree(el)) return { entries: [] };
      const modal = modals.get(el.ownerDocument);
      if (modal && !el.contains(modal) && !modal.contains(el)) return { entries: [] };
      let role = roleOf(el);
      const pointer = !!el.__hermesPointer;
      // A page makes any element a control with a click handler or a
      // pointer cursor: a list item or a paragraph as much as a div.
      if ((!role || PROMOTABLE.has(role)) && isClickable(el, parentPointer)) role = 'clickable';
      if (INTERACTIVE.has(role) && unreachable(el) && !hasVisibleLabel(el)) {
        // Nobody can see or reach it: no ref to send the model after it.
        // Its content may still show (visibility:visible inside hidden).
        return { entries: refsOnly(walkKids(el, pointer || parentPointer)) };
      }
      // A row or cell that holds a table is layout (whole pages sit in one
      // such cell): naming it from its content would repeat the page in
      // one line, so it is a plain container.
      if (LAYOUT_ROLES.has(role) && !el.hasAttribute('role') && el.querySelector('table, [role=row], [role=grid], [role=table]')) role = null;
      const interactive = INTERACTIVE.has(role) && !(el.localName === 'option' && !full);
      // Refs are issued before the children are walked, so they follow
      // document order (an iframe before its content).
      const id = (interactive || role === 'iframe') ? refOf(el) : '';
      if (el.localName === 'label' && el.control) {
        // The label's text is the control's name; say it once.
        const inner = walkKids(el, pointer || parentPointer).filter((e) => e.k !== 'text');
        return { entries: inner };
      }
      const isRow = role === 'row';
      let kids = [];
      let frameNote = '';
      if (role === 'iframe') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) { doc = null; }
        if (doc && doc.documentElement) {
          markPointers(doc);
          noteModal(doc);
          kids = walkKids(doc.documentElement, false);
        } else {
          skippedFrames++;
          // Where it points, so the model can open it: origin and path
          // only, since a query may carry the embedding page's secrets;
          // the Go side masks a token in the path (redactFrameURLs).
          let where = '';
          try { const u = new URL(el.src, location.href); if (/^https?:$/.test(u.protocol)) where = ', url: ' + u.origin + u.pathname.replace(/[()\s]/g, encodeURIComponent); } catch (e) { where = ''; }
          frameNote = ' (cross-origin' + where + ')';
        }
      } else if (el.localName === 'select' || el.localName === 'textarea') {
        // Their text is a value, said in [value=...] as the field holds it
        // now; the full outline shows a long textarea's value whole.
        kids = [];
        if (full && el.localName === 'textarea' && norm(el.value).length > 80) {
          kids = wrap(norm(el.value)).map((t) => ({ t: 'text: ' + t, c: [], ids: [], k: 'text' }));
        }
      } else if (role && NAME_FROM_CONTENT.has(role)) {
        // The name already carries the text; keep only the controls
        // inside (a row of cells, a card that is a link around a button).
        kids = refsOnly(walkKids(el, true));
      } else {
        kids = walkKids(el, pointer || parentPointer);
      }
      // A control's name is a label, cut at 100; a row's or heading's
      // name is the page's text, whole in the full outline.
      let name = '';
      if (isRow) {
        name = rowName(el);
        if (!full) name = clip(name, 60);
      } else if (role) {
        name = nameOf(el, role, full && !interactive ? Infinity : 300);
        if (interactive || !full) name = clip(name, 100);
      }
      if (!role && texts) {
        // Generic containers are transparent; an inline one holding only
        // text joins the parent's text run.
        const textOnly = kids.every((k) => !k.c.length && k.k === 'text');
        if (textOnly && kids.length && el.localName !== 'iframe' && getComputedStyle(el).display.startsWith('inline')) {
          return { entries: [], inlineText: kids.map((k) => k.t.slice(6)).join(' ') };
        }
      }
      let show;
      if (full) {
        show = !!role;
        if (!role) return { entries: kids };
      } else {
        show = interactive || (isRow && kids.length > 0) ||
          ((CONTEXT.has(role) || (texts && LIVE.has(role))) && (kids.length > 0 || role === 'heading' || role === 'iframe'));
        if (role === 'heading') kids = [];
      }
      if (!show) return { entries: kids };
      if (role !== 'heading' && role !== 'iframe' && !interactive && !kids.length && !name && !full) return { entries: [] };
      if (interactive && !el.isConnected) return { entries: [] };
      let line = role + (name ? ' ' + quote(name) : '') + states(el, role, full) + frameNote;
      const ids = [];
      if (id) { line += ' [ref=' + id + ']'; ids.push(id); }
      if (isRow && full && name.length > TEXT_LINE) {
        // A row holding a long text (a post, a comment) keeps it whole as
        // text lines under the row, so no line outgrows a budget.
        kids = wrap(name).map((t) => ({ t: 'text: ' + t, c: [], ids: [], k: 'text' })).concat(kids);
        name = '';
        line = role + states(el, role, full);
      }
      if (isRow && kids.length && kids.length <= ROW_LINE_MAX && kids.every((k) => !k.c.length && k.ids.length)) {
        // One line per row: its own text, then its controls. Tables are
        // where pages repeat a structure a thousand times; a line per
        // cell would spend most of the budget on indentation and dashes.
        line += ': ' + kids.map((k) => k.t).join(', ');
        for (const k of kids) for (const i of k.ids) ids.push(i);
        kids = [];
      }
      if (texts && kids.length === 1 && kids[0].k === 'text' && !kids[0].c.length) {
        line += ': ' + kids[0].t.slice(6);
        kids = [];
      }
      used += line.length + 4;
      return { entries: [{ t: line, c: kids, ids: ids, k: 'box' }] };
    }

    // wrap splits a long text run into lines of about TEXT_LINE characters
    // at spaces: nothing is cut, but no single line is too big to fit a
    // budget, so a continuation always moves on.
    function wrap(t) {
      if (t.length <= TEXT_LINE) return [t];
      const parts = [];
      while (t.length > TEXT_LINE) {
        let at = t.lastIndexOf(' ', TEXT_LINE);
        if (at < TEXT_LINE / 2) at = TEXT_LINE;
        parts.push(t.slice(0, at));
        t = t.slice(at).trimStart();
      }
      if (t) parts.push(t);
      return parts;
    }

    // markPointers flags elements whose own computed cursor is pointer, so
    // the walk can spot clickable divs without a style lookup per node
    // twice. One pass over the elements that have a non-auto cursor.
    function markPointers(doc) {
      const all = doc.querySelectorAll('div,span,li,td,img,svg,label,p,section,article,i');
      for (const el of all) {
        if (el.__hermesPointer !== undefined) continue;
        const p = el.parentElement;
        const cur = getComputedStyle(el).cursor;
        el.__hermesPointer = cur === 'pointer' && !(p && getComputedStyle(p).cursor === 'pointer');
      }
    }

    // The open modal dialog of each document walked, found once.
    const modals = new Map();
    const noteModal = (doc) => { if (!modals.has(doc)) modals.set(doc, modalOf(doc)); };
    noteModal(document);
    let root = document.documentElement;
    if (opts.selector) {
      root = document.querySelector(opts.selector);
      if (!root) return { error: 'no element matches selector ' + opts.selector };
    }
    markPointers(document);
    const top = walkEl(root, false);
    let entries = top.entries;
    if (top.inlineText) entries = [{ t: 'text: ' + top.inlineText, c: [], ids: [], k: 'text' }];

    // Flatten into lines. A line costs what it adds to the tool's result
    // text: its JSON-escaped bytes and the escaped newline after it, so the
    // caller's max_chars bounds what the model actually receives.
    const L = [];
    const flat = (list, depth, parent) => {
      for (const e of list) {
        const i = L.length;
        const s = '  '.repeat(depth) + '- ' + e.t;
        L.push({ s: s, n: jsonLen(s) + 2, ids: e.ids, p: parent });
        flat(e.c, depth + 1, i);
      }
    };
    flat(entries, 0, -1);
    if (opts.collect) return opts.collect(L, { walkCut: walkCut, crossOriginFrames: skippedFrames, next: next });
    // What the model now has seen of the page, for changes() to compare
    // the next action's page with: the whole view (controls and text),
    // whatever part of it this snapshot showed.
    if (offset === 0) lastView = takeView();
    let total = 0;
    for (const l of L) total += l.ids.length;

    // A page is the lines from offset on, in order, up to the budget, and
    // the next page starts at the first line left out. Nothing inside a
    // page is skipped, so following the offsets from 0 shows every line
    // and every ref exactly once, and each page shows at least one line.
    // (Keeping controls ahead of text would drop text lines that the next
    // page, which must not repeat those controls, could never show.)
    const keep = new Uint8Array(L.length);
    let size = 0;
    // The containers of the first line, so a continuation still says
    // where it is; their refs were given by the page before, so they are
    // repeated without them.
    const context = [];
    if (offset > 0 && offset < L.length) {
      for (let p = L[offset].p; p >= 0; p = L[p].p) {
        const s = L[p].s.replace(/ \[ref=e\d+\]/g, '');
        context.unshift(s);
        size += jsonLen(s) + 2;
      }
    }
    let stop = offset;
    for (; stop < L.length; stop++) {
      // The first line is shown even when it alone is over the budget:
      // a continuation that shows nothing would never end.
      if (size + L[stop].n > budget && stop > offset) break;
      keep[stop] = 1;
      size += L[stop].n;
    }
    const out = context.slice();
    let shown = 0, before = 0, after = 0, afterLines = 0, afterBytes = 0;
    for (let i = 0; i < L.length; i++) {
      const l = L[i];
      if (keep[i]) { out.push(l.s); for (const id of l.ids) last.push(id); shown += l.ids.length; continue; }
      if (i < offset) before += l.ids.length;
      else { after += l.ids.length; afterLines++; afterBytes += l.n; }
    }
    return {
      snapshot: out.join('\n'),
      count: shown,
      total: total,
      before: before,
      after: after,
      lines: L.length,
      offset: offset,
      stop: stop,
      afterLines: afterLines,
      afterBytes: afterBytes,
      size: size,
      walkCut: walkCut,
      crossOriginFrames: skippedFrames,
      next: next,
    };
  }

  // lastView is the page as of the model's latest look at this document
  // (a snapshot or an action's changes): the interactive outline and the
  // text runs, line text by key: a line's refs or, for a line without
  // refs, its text and which occurrence of that text it is (a second
  // identical comment is a new line).
  let lastView = null;

  function viewOf(L) {
    const m = new Map(), order = [], seen = new Map();
    for (const l of L) {
      const text = l.s.replace(/^\s*- /, '');
      let key;
      if (l.ids.length) key = l.ids.join(',');
      else {
        const n = (seen.get(text) || 0) + 1;
        seen.set(text, n);
        key = 't' + n + ':' + text;
      }
      if (!m.has(key)) { m.set(key, text); order.push(key); }
    }
    return { m: m, order: order, walkCut: false };
  }

  // takeView walks the page as a view without touching what the latest
  // snapshot listed (annotate draws those).
  function takeView() {
    const keep = last;
    const v = snapshot({ full: false, texts: true, collect: (L, info) => { const v = viewOf(L); v.walkCut = info.walkCut; return v; } });
    last = keep;
    return v;
  }

  // changes compares the view now (controls, headings and text) with
  // lastView and returns the lines added (+), changed (~, same ref) and removed (-,
  // without their refs, which no longer act), in document order, within
  // budget bytes; the rest is counted. The page now becomes lastView.
  // none: no earlier view of this document to compare with.
  function changes(budget) {
    const now = takeView();
    const before = lastView;
    lastView = now;
    if (!before) return { none: true, next: next };
    const out = [];
    let size = 0, more = 0, count = 0, firstLeft = '', textLeft = false;
    const push = (s, key) => {
      count++;
      const n = jsonLen(s) + 2;
      if (size + n > budget) {
        more++;
        if (!firstLeft && key[0] === 'e') firstLeft = key.split(',')[0];
        if (key[0] === 't') textLeft = true;
        return;
      }
      size += n;
      out.push(s);
    };
    for (const k of now.order) {
      const was = before.m.get(k), t = now.m.get(k);
      if (was === undefined) push('+ ' + t, k);
      else if (was !== t) push('~ ' + t, k);
    }
    for (const k of before.order) {
      if (!now.m.has(k)) push('- ' + before.m.get(k).replace(/ \[ref=e\d+\]/g, ''), '');
    }
    // Where the interactive outline shows the first control left out, so
    // the result can name the snapshot offset that continues from there.
    let resume = -1;
    if (firstLeft) {
      const keep = last;
      resume = snapshot({ full: false, collect: (L) => L.findIndex((l) => l.ids.includes(firstLeft)) });
      last = keep;
    }
    return { text: out.join('\n'), count: count, more: more, resume: resume, textLeft: textLeft, walkCut: now.walkCut, next: next };
  }

  // find searches the whole outline (controls and text) for lines whose
  // text contains opts.query (any case) and whose role is opts.role, and
  // returns up to opts.max of them, each with the containers it sits in,
  // within opts.budget bytes. Matching refs are issued as a snapshot
  // issues them, so they can be acted on at once.
  function find(opts) {
    const want = norm(opts.query).toLowerCase();
    const role = norm(opts.role).toLowerCase();
    const max = opts.max > 0 ? opts.max : 10;
    const budget = opts.budget > 0 ? opts.budget : 4000;
    const LINE = 240;
    const roleRE = role ? new RegExp('(^|: |, )' + role.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '( |:|$)') : null;
    return snapshot({ full: true, selector: opts.selector, collect: (L, info) => {
      const bare = (s) => s.replace(/^\s*- /, '');
      const strip = (s) => bare(s).replace(/ \[ref=e\d+\]/g, '');
      // The text a line is searched by: what it says, not its refs.
      const hay = (s) => strip(s).toLowerCase();
      const out = [];
      let total = 0, size = 0, cut = 0;
      last = [];
      for (let i = 0; i < L.length; i++) {
        const l = L[i];
        const text = bare(l.s);
        // A table row's line lists its controls after its text: a row
        // holding a button is found when buttons are looked for.
        if (roleRE && !roleRE.test(text)) continue;
        const h = hay(l.s);
        const at = want ? h.indexOf(want) : 0;
        if (at < 0) continue;
        total++;
        if (out.length >= max) continue;
        let line = text;
        if (line.length > LINE) {
          // A long text line: the part around the match, where the
          // match is (refs stay: they are at the line's end on
          // controls, whose lines are short).
          const refs = (line.match(/ \[ref=e\d+\]/g) || []).join('');
          const plain = strip(l.s);
          const from = Math.max(0, at - 80);
          line = (from > 0 ? '…' : '') + plain.slice(from, from + LINE - 20) + (from + LINE - 20 < plain.length ? '…' : '') + refs;
        }
        const ctx = [];
        for (let p = l.p; p >= 0 && ctx.length < 2; p = L[p].p) ctx.unshift(clip(strip(L[p].s), 60));
        const entry = '- ' + line + (ctx.length ? '  (in ' + ctx.join(' > ') + ')' : '');
        const n = jsonLen(entry) + 2;
        if (size + n > budget && out.length) { cut++; continue; }
        size += n;
        out.push(entry);
        for (const id of l.ids) last.push(id);
      }
      return {
        matches: out.join('\n'), shown: out.length, total: total, cut: cut,
        walkCut: info.walkCut, crossOriginFrames: info.crossOriginFrames, next: info.next,
      };
    } });
  }

  function resolve(id) {
    const el = refs.get(id);
    const num = parseInt(id.slice(1), 10);
    if (!el) {
      if (num < first) throw new Error('stale');
      throw new Error('unknown');
    }
    if (!el.isConnected) throw new Error('stale');
    return el;
  }

  function describe(el) {
    const role = roleOf(el) || el.localName;
    const name = clip(nameOf(el, role), 60);
    return role + (name ? ' ' + quote(name) : '');
  }

  // deepHit returns the element at a viewport point, through open shadow
  // roots and same-origin iframes.
  function deepHit(x, y) {
    let doc = document, ox = 0, oy = 0, hit = null;
    for (let i = 0; i < 10; i++) {
      let h = doc.elementFromPoint(x - ox, y - oy);
      while (h && h.shadowRoot) {
        const inner = h.shadowRoot.elementFromPoint(x - ox, y - oy);
        if (!inner || inner === h) break;
        h = inner;
      }
      hit = h;
      if (h && (h.localName === 'iframe' || h.localName === 'frame')) {
        let d = null;
        try { d = h.contentDocument; } catch (e) { d = null; }
        if (!d) return hit;
        const r = h.getBoundingClientRect();
        ox += r.left + h.clientLeft; oy += r.top + h.clientTop;
        doc = d;
        continue;
      }
      return hit;
    }
    return hit;
  }

  function composedContains(a, b) {
    for (let n = b; n; n = n.parentNode || n.host) {
      if (n === a) return true;
      if (n.nodeType === 9) { n = n.defaultView && n.defaultView.frameElement; if (!n) return false; if (n === a) return true; }
    }
    return false;
  }

  // hitCheck returns '' when a click at (x, y) reaches el, or a description
  // of the element that covers it.
  function hitCheck(el, x, y) {
    const hit = deepHit(x, y);
    if (!hit) return '';
    if (composedContains(el, hit) || composedContains(hit, el)) return '';
    if (hit.localName === 'label' && hit.control === el) return '';
    if (el.labels && Array.from(el.labels).some((l) => composedContains(l, hit))) return '';
    let d = '<' + hit.localName + (hit.id ? '#' + hit.id : '') +
      (typeof hit.className === 'string' && hit.className ? '.' + hit.className.trim().split(/\s+/).slice(0, 2).join('.') : '') + '>';
    const t = clip(textOf(hit, 60), 40);
    return d + (t ? ' "' + t + '"' : '');
  }

  // prepareType focuses el and selects its content, so the typed text
  // replaces it, as the tool promises. Returns the kind of field.
  function prepareType(el) {
    el.scrollIntoView({ block: 'center', inline: 'nearest' });
    const tag = el.localName;
    if (el.matches(':disabled') || el.closest('[aria-disabled="true"]')) return 'disabled';
    if (tag === 'select') return 'select';
    if (tag === 'input' || tag === 'textarea') {
      const ty = (el.getAttribute('type') || 'text').toLowerCase();
      if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'range', 'color', 'hidden'].includes(ty)) return 'notext:' + ty;
      if (el.readOnly) return 'readonly';
      el.focus();
      try { el.select(); } catch (e) { /* some types have no selection API */ }
      return 'input';
    }
    if (el.isContentEditable) {
      el.focus();
      const sel = el.ownerDocument.getSelection();
      const r = el.ownerDocument.createRange();
      r.selectNodeContents(el);
      sel.removeAllRanges();
      sel.addRange(r);
      return 'editable';
    }
    return 'notext:' + (roleOf(el) || tag);
  }

  // fillKind says how browser_fill sets el: text, select, checkbox,
  // radio, or why it cannot ("disabled", "readonly", "other:<role>").
  function fillKind(el) {
    const tag = el.localName;
    if (el.matches(':disabled') || el.closest('[aria-disabled="true"]')) return 'disabled';
    if (tag === 'select') return 'select';
    if (tag === 'input') {
      const ty = (el.getAttribute('type') || 'text').toLowerCase();
      if (ty === 'checkbox' || ty === 'radio') return ty;
      if (['button', 'submit', 'reset', 'image', 'file', 'hidden', 'range', 'color'].includes(ty)) return 'other:' + (inputRole(el) || ty) + ' (' + ty + ')';
    }
    if (tag === 'input' || tag === 'textarea') return el.readOnly ? 'readonly' : 'text';
    if (el.isContentEditable) return 'text';
    const r = roleOf(el);
    if (r === 'checkbox' || r === 'switch' || r === 'menuitemcheckbox') return 'ariacheckbox';
    if (r === 'radio' || r === 'menuitemradio') return 'ariaradio';
    return 'other:' + (r || tag);
  }

  function isChecked(el) {
    return el.localName === 'input' ? el.checked : el.getAttribute('aria-checked') === 'true';
  }

  // setChecked clicks el when its state differs from want, as a person
  // would (the page's handlers run), and says '' or why it did not take.
  function setChecked(el, want) {
    if (isChecked(el) === want) return '';
    const radio = el.localName === 'input' ? el.type === 'radio' : /radio/.test(roleOf(el) || '');
    if (radio && !want) return 'a radio button is cleared by choosing another in its group, not by itself';
    el.scrollIntoView({ block: 'center', inline: 'nearest' });
    el.click();
    return isChecked(el) === want ? '' : 'the page kept it ' + (want ? 'unchecked' : 'checked') + ' after the click';
  }

  // fieldState is what el holds now, to report after filling it.
  function fieldState(el) {
    if (el.localName === 'select') {
      const o = el.selectedOptions && el.selectedOptions[0];
      return 'selected ' + quote(clip(o ? norm(o.label || o.textContent) : '', 60));
    }
    const k = fillKind(el);
    if (k === 'checkbox' || k === 'radio' || k === 'ariacheckbox' || k === 'ariaradio') return isChecked(el) ? 'checked' : 'unchecked';
    let v = typeof el.value === 'string' && el.localName !== 'div' ? el.value : (el.isContentEditable ? el.innerText : '');
    if (el.type === 'password' && v) v = '••••';
    return 'value ' + quote(clip(norm(v), 60));
  }

  function clearField(el) {
    const proto = el.localName === 'textarea' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
    if (el.isContentEditable) el.textContent = ''; else setter.call(el, '');
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }

  function selectOption(el, text) {
    const want = norm(text).toLowerCase();
    const opts = Array.from(el.options);
    const o = opts.find((o) => norm(o.label || o.textContent).toLowerCase() === want) ||
      opts.find((o) => o.value.toLowerCase() === want) ||
      opts.find((o) => norm(o.label || o.textContent).toLowerCase().includes(want));
    if (!o) return 'no option matches ' + JSON.stringify(text) + '; options: ' + opts.map((o) => JSON.stringify(norm(o.label || o.textContent))).join(', ');
    el.value = o.value;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return '';
  }

  // scroll moves the page, or the scroll container under the viewport
  // centre when the page itself does not scroll (apps that scroll a div).
  function scroll(dir) {
    const dy = (dir === 'up' ? -1 : 1) * Math.round(innerHeight * 0.8);
    const se = document.scrollingElement || document.documentElement;
    const before = se.scrollTop;
    se.scrollBy(0, dy);
    if (se.scrollTop !== before) return { moved: true, y: Math.round(se.scrollTop), max: se.scrollHeight - se.clientHeight };
    for (let n = deepHit(innerWidth / 2, innerHeight / 2); n; n = n.parentElement || (n.getRootNode() && n.getRootNode().host)) {
      if (n.nodeType !== 1) continue;
      const cs = getComputedStyle(n);
      if (/(auto|scroll|overlay)/.test(cs.overflowY) && n.scrollHeight > n.clientHeight) {
        const b = n.scrollTop;
        n.scrollBy(0, dy);
        if (n.scrollTop !== b) return { moved: true, y: Math.round(n.scrollTop), max: n.scrollHeight - n.clientHeight };
      }
    }
    return { moved: false, y: Math.round(se.scrollTop), max: se.scrollHeight - se.clientHeight };
  }

  function images() {
    const out = [];
    const seen = new Set();
    const visit = (doc) => {
      for (const img of doc.images) {
        const src = img.currentSrc || img.src || img.getAttribute('data-src') || '';
        if (!src || src.startsWith('data:') || seen.has(src)) continue;
        seen.add(src);
        out.push({
          src: src,
          alt: img.getAttribute('alt') || '',
          width: img.naturalWidth || +img.getAttribute('width') || 0,
          height: img.naturalHeight || +img.getAttribute('height') || 0,
          loaded: img.complete && img.naturalWidth > 0,
        });
        if (out.length >= 200) return;
      }
      for (const f of doc.querySelectorAll('iframe')) {
        let d = null;
        try { d = f.contentDocument; } catch (e) { d = null; }
        if (d) visit(d);
      }
    };
    visit(document);
    return out;
  }

  // annotate draws a numbered label on every element of the latest
  // snapshot that is in the viewport: [N] matches ref eN.
  function annotate() {
    removeAnnotations();
    const layer = document.createElement('div');
    layer.id = '__hermes_annotations';
    layer.style.cssText = 'position:fixed;inset:0;pointer-events:none;z-index:2147483647;';
    const shown = [];
    for (const id of last) {
      const el = refs.get(id);
      if (!el || !el.isConnected) continue;
      let r = el.getBoundingClientRect();
      let ox = 0, oy = 0;
      for (let w = el.ownerDocument.defaultView; w && w.frameElement; w = w.parent) {
        const fr = w.frameElement.getBoundingClientRect();
        ox += fr.left + w.frameElement.clientLeft; oy += fr.top + w.frameElement.clientTop;
      }
      const x = r.left + ox, y = r.top + oy;
      if (r.width === 0 || r.height === 0 || y + r.height < 0 || x + r.width < 0 || y > innerHeight || x > innerWidth) continue;
      const box = document.createElement('div');
      box.style.cssText = `position:absolute;left:${x}px;top:${y}px;width:${r.width}px;height:${r.height}px;outline:2px solid #e11;`;
      const lab = document.createElement('div');
      lab.textContent = '[' + id.slice(1) + ']';
      lab.style.cssText = `position:absolute;left:${x}px;top:${Math.max(0, y - 14)}px;font:bold 11px/13px monospace;background:#e11;color:#fff;padding:0 2px;`;
      layer.appendChild(box);
      layer.appendChild(lab);
      shown.push({ label: +id.slice(1), ref: '@' + id, element: describe(el) });
    }
    document.documentElement.appendChild(layer);
    return shown;
  }

  function removeAnnotations() {
    const old = document.getElementById('__hermes_annotations');
    if (old) old.remove();
  }

  return (globalThis.__hermes = {
    snapshot, find, changes, resolve, describe, hitCheck, clickBlock, fillKind, setChecked, fieldState, prepareType, clearField, selectOption,
    scroll, images, annotate, removeAnnotations,
    hasRefs: () => last.length > 0,
  });
})
