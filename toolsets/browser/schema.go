package browser

// Descriptions and input schemas of the tools. Names, parameters and
// required lists are the Python Hermes' (tools/browser_tool.py); extra
// optional parameters (selector, max_chars, submit) never change a call
// that omits them. browser_tabs is this implementation's own.

const navigateDesc = "Navigate the browser to a URL and return a compact snapshot of the page: an " +
	"accessibility outline where each interactive element carries a ref like [ref=e5]. Call this first; " +
	"the other browser tools act on the page it opens. Pass refs as @e5 to browser_click and " +
	"browser_type. For simple information retrieval, prefer web_search or web_extract (faster, cheaper); " +
	"for plain-text endpoints use curl."

const navigateSchema = `{
  "type": "object",
  "properties": {
    "url": {"type": "string", "maxLength": 8192, "description": "The URL to open, e.g. 'https://example.com/login'."}
  },
  "required": ["url"],
  "additionalProperties": false
}`

const snapshotDesc = "Read the current page as an accessibility outline. It starts with the page's url and " +
	"title (and says when the page navigated since the previous result). By default only interactive " +
	"elements (links, buttons, fields, ...) and headings are listed, each with a ref like [ref=e5] that " +
	"browser_click and browser_type take as @e5; a table row is one line: its text, then its controls with " +
	"their refs. Set full=true for the whole page including its text, uncut (long runs wrap over lines); control names are " +
	"cut at 100 characters and a select lists its first 25 options. Content inside tables, lists, same-origin " +
	"iframes and open shadow DOM is included; closed shadow roots cannot be read and are not shown. Refs " +
	"stay valid until the page navigates or the element disappears; then take a new snapshot. The result " +
	"fits max_chars (default 8000; 40,000 with full=true, so an article reads in one call): a longer outline is cut at a line, and the result says how many " +
	"controls and lines follow and the offset that continues where it stopped (following the offsets " +
	"shows every line once); selector narrows it to one part."

const snapshotSchema = `{
  "type": "object",
  "properties": {
    "full": {"type": "boolean", "default": false, "description": "true: the whole page with its text; false (default): interactive elements and headings only."},
    "selector": {"type": "string", "maxLength": 100000, "description": "Optional CSS selector; only the first matching element's subtree is described (e.g. 'main', 'form#login', '#results')."},
    "max_chars": {"type": "integer", "minimum": 500, "maximum": 200000, "description": "Optional size cap in bytes of the whole result text (default 8000, or 40000 with full=true). Counts everything returned: the JSON, its escapes, the url/title header and the notes. A longer outline is cut at a line, with a note saying what follows and the offset to continue from; a single line too long for the cap is shown whole, and the note says so."},
    "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Start at this line of the outline: the offset a cut snapshot's note gives, to continue where it stopped (same full and selector)."}
  },
  "additionalProperties": false
}`

const clickDesc = "Click an element by its ref from the latest snapshot (e.g. @e5). Sends a real mouse " +
	"click at the element's centre after scrolling it into view; refuses, saying why, when the element " +
	"cannot take the click: disabled, hidden, or covered by another element (a dialog, a cookie banner). Waits for a navigation the click starts; a new tab or window it opens " +
	"becomes the current page (the result says so). A dialog it opens is reported in the result. Like " +
	"every action's result (type, press, scroll, back, fill, dialog), it carries changes: the lines of the " +
	"outline and the text (a status line, a new comment) the action added (+), changed (~) or removed (-) " +
	"since the latest snapshot or result, with refs usable at once; after a navigation it carries the new " +
	"page's snapshot instead. No snapshot call is needed to go on."

const clickSchema = `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "maxLength": 8192, "description": "The element's ref from the snapshot, e.g. '@e5'."}
  },
  "required": ["ref"],
  "additionalProperties": false
}`

const typeDesc = "Type text into an input field by ref. The field is cleared first, then the text is " +
	"inserted. For a select (combobox with options) the option whose label matches the text is chosen. " +
	"Set submit=true to press Enter afterwards (submits most forms)."

const typeSchema = `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "maxLength": 8192, "description": "The field's ref from the snapshot, e.g. '@e3'."},
    "text": {"type": "string", "maxLength": 100000, "description": "The text to type; it replaces the field's content."},
    "submit": {"type": "boolean", "default": false, "description": "Press Enter after typing."}
  },
  "required": ["ref", "text"],
  "additionalProperties": false
}`

const pressDesc = "Press a keyboard key in the page, sent to the focused element: Enter, Tab, Escape, " +
	"ArrowDown, ArrowUp, Backspace, PageDown, a single character, or a combination such as Control+a."

const pressSchema = `{
  "type": "object",
  "properties": {
    "key": {"type": "string", "maxLength": 8192, "description": "Key to press, e.g. 'Enter', 'Tab', 'Escape', 'ArrowDown', 'a', 'Control+a'."}
  },
  "required": ["key"],
  "additionalProperties": false
}`

const scrollDesc = "Scroll the page (or, when the page itself does not scroll, the scrollable area in the " +
	"middle of the view) up or down by most of a screen. Use it to reveal lazy-loaded content, then " +
	"take a snapshot."

const scrollSchema = `{
  "type": "object",
  "properties": {
    "direction": {"type": "string", "enum": ["up", "down"], "description": "'up' or 'down'."}
  },
  "required": ["direction"],
  "additionalProperties": false
}`

const backDesc = "Go back to the previous page in the browser history."

const tabsDesc = "List, switch or close the browser's tabs. A page that opens a new tab or window " +
	"(a target=_blank link, window.open) makes it the current page by itself, and the result of that " +
	"call says so; use this tool to see every tab (action=list: index, URL, title, which is current), " +
	"go back to one (action=select) or close one (action=close: closing the current tab makes another " +
	"current; closing the last leaves a blank page). Refs belong to the page whose snapshot listed " +
	"them: after switching, take a snapshot."

const tabsSchema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["list", "select", "close"], "description": "'list' every tab; 'select' makes tab index the current page; 'close' closes tab index."},
    "index": {"type": "integer", "minimum": 1, "description": "The tab's number from action=list (the first tab is 1); required for select and close."}
  },
  "required": ["action"],
  "additionalProperties": false
}`

const dialogDesc = "Answer the JavaScript dialog the current page shows: alert, confirm, prompt, or " +
	"beforeunload (the page asks whether to leave it). While a dialog is open the page is frozen and " +
	"the other browser tools report the dialog instead of acting. accept=true presses OK (for " +
	"beforeunload: leave, and a navigation that was asked for goes on); accept=false presses Cancel " +
	"(stay). prompt_text is the answer to a prompt."

const dialogSchema = `{
  "type": "object",
  "properties": {
    "accept": {"type": "boolean", "description": "true: OK (accept, leave the page); false: Cancel (dismiss, stay)."},
    "prompt_text": {"type": "string", "maxLength": 100000, "description": "For a prompt dialog: the text to answer with (default: the prompt's suggested text)."}
  },
  "required": ["accept"],
  "additionalProperties": false
}`

const emptySchema = `{
  "type": "object",
  "properties": {},
  "required": [],
  "additionalProperties": false
}`

const imagesDesc = "List the images on the current page (including same-origin iframes): src, alt text, " +
	"width and height, and whether each has loaded (lazy images load once scrolled into view). " +
	"data: URLs are left out."

const consoleDesc = "Read the browser console of the current page: console messages (log, warning, " +
	"error, ...) and uncaught JavaScript errors, oldest first. clear=true empties the buffer after " +
	"reading. With expression, evaluates that JavaScript in the page instead (promises are awaited) and " +
	"returns its JSON value and type."

const consoleSchema = `{
  "type": "object",
  "properties": {
    "clear": {"type": "boolean", "default": false, "description": "Empty the message buffer after returning it."},
    "expression": {"type": "string", "maxLength": 100000, "description": "JavaScript to evaluate in the page, e.g. 'document.title' or 'JSON.parse(localStorage.cart)'."}
  },
  "additionalProperties": false
}`

const visionDesc = "Take a screenshot of the current page and ask a vision model a question about it " +
	"(layout, charts, images, CAPTCHAs, anything the outline cannot show). The screenshot is also " +
	"returned as an image and saved to screenshot_path. annotate=true draws numbered labels [N] on " +
	"interactive elements; [N] is the element with ref @eN, so an answer can be acted on."

const visionSchema = `{
  "type": "object",
  "properties": {
    "question": {"type": "string", "maxLength": 100000, "description": "What to find out from the screenshot."},
    "annotate": {"type": "boolean", "default": false, "description": "Overlay numbered [N] labels matching refs @eN."}
  },
  "required": ["question"],
  "additionalProperties": false
}`

const cdpDesc = "Send a raw Chrome DevTools Protocol (CDP) command to a tab of this session. Escape hatch " +
	"for browser operations not covered by browser_navigate, browser_click, browser_console, etc.\n\n" +
	"**Requires an attached browser:** available when BROWSER_CDP_URL or browser.cdp_url in config.yaml " +
	"names a running Chrome, Brave, Chromium or Edge with remote debugging. If the tool is listed, it is.\n\n" +
	"**CDP method reference:** " + cdpDocs + " (e.g. '/tot/Page/#method-handleJavaScriptDialog' for a " +
	"method's parameters and return shape).\n\n" +
	"**Common patterns:**\n" +
	"- List this session's tabs: method='Target.getTargets', params={}\n" +
	"- Handle a native JS dialog: method='Page.handleJavaScriptDialog', params={'accept': true, 'promptText': ''}, target_id=<tabId>\n" +
	"- Get the page's cookies: method='Network.getCookies', params={}\n" +
	"- Eval in a specific tab: method='Runtime.evaluate', params={'expression': '...', 'returnByValue': true}, target_id=<tabId>\n" +
	"- Set viewport for a tab: method='Emulation.setDeviceMetricsOverride', params={'width': 1280, 'height': 720, " +
	"'deviceScaleFactor': 1, 'mobile': false}, target_id=<tabId>\n\n" +
	"**Usage rules:**\n" +
	"- Page-level methods (Page.*, Runtime.*, DOM.*, Emulation.*, Network.*, ...) run on the tab target_id names " +
	"(from Target.getTargets), or on the current tab when it is omitted.\n" +
	"- Browser-level methods: Target.getTargets (this session's tabs only) and Browser.getVersion. The rest of " +
	"Target.*, Browser.*, Storage.* and Fetch.* are refused, as are methods that would leave the network policy " +
	"or reach other sessions (Network.getAllCookies, Page.setDownloadBehavior, DOM.setFileInputFiles, ...); " +
	"Page.navigate to a refused address is refused before it starts.\n" +
	"- Each call is independent: event subscriptions do not persist between calls. For stateful workflows, " +
	"prefer the dedicated browser tools. Secrets in results are masked; the call's timeout is also bounded by " +
	"browser.command_timeout."

const cdpSchema = `{
  "type": "object",
  "properties": {
    "method": {"type": "string", "maxLength": 8192, "description": "CDP method name, e.g. 'Target.getTargets', 'Runtime.evaluate', 'Page.handleJavaScriptDialog'."},
    "params": {"type": "object", "properties": {}, "additionalProperties": true, "description": "Method-specific parameters as a JSON object. Omit or pass {} for methods that take no parameters."},
    "target_id": {"type": "string", "maxLength": 8192, "description": "Optional. Target/tab ID from Target.getTargets result (each entry's 'targetId'). Use for page-level methods at the top-level tab scope. Mutually exclusive with frame_id."},
    "frame_id": {"type": "string", "maxLength": 8192, "description": "Optional. Out-of-process iframe frame_id, as the original takes from browser_snapshot.frame_tree; this server keeps no per-frame CDP session and refuses it with an explanation. For same-origin iframes, use contentWindow/contentDocument from Runtime.evaluate at the top-level page instead."},
    "timeout": {"type": "number", "default": 30, "description": "Timeout in seconds (default 30, max 300)."}
  },
  "required": ["method"],
  "additionalProperties": false
}`

const findDesc = "Search the current page by text, accessible name or role, instead of reading a whole " +
	"snapshot. Returns the matching lines of the page's outline (controls and text) with their refs (@eN, " +
	"usable at once by browser_click, browser_type and browser_fill) and the containers each sits in (a form, a " +
	"dialog, a table row). The query matches any part of a line, in any case; role keeps only lines of " +
	"that role (button, link, textbox, checkbox, combobox, heading, row, text, ...), a table row counting " +
	"for the controls it lists. At most max_results matches (default 10, at most 20) and about 4,000 " +
	"bytes; the result says how many more there are."

const findSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "maxLength": 1000, "description": "Text to look for in the page's visible text and its controls' names and values, e.g. 'sign in' or 'Total'. Optional when role is given."},
    "role": {"type": "string", "maxLength": 40, "description": "Only lines of this role, e.g. 'button', 'link', 'textbox', 'checkbox', 'heading', 'row', 'text'."},
    "selector": {"type": "string", "maxLength": 100000, "description": "Optional CSS selector: search only the first matching element's subtree."},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 20, "default": 10, "description": "How many matches to return (default 10, at most 20)."}
  },
  "additionalProperties": false
}`

const fillDesc = "Fill several form fields in one call, by their refs from the latest snapshot or " +
	"browser_find: text fields and textareas get the text (replacing what they held), a select gets the " +
	"option whose label matches, a checkbox or radio is checked with true or cleared with false (by a " +
	"click, so the page's handlers run). Fields are set in order; the result lists what each field holds " +
	"afterwards. Every item is checked before anything changes; the first field that cannot be set ends " +
	"the call with an error naming it and the fields already set. Submit with browser_click or browser_press."

const fillSchema = `{
  "type": "object",
  "properties": {
    "fields": {
      "type": "array", "minItems": 1, "maxItems": 30,
      "description": "The fields to set, in order (at most 30).",
      "items": {
        "type": "object",
        "properties": {
          "ref": {"type": "string", "maxLength": 64, "description": "The field's ref, e.g. '@e3'."},
          "value": {"type": ["string", "boolean"], "maxLength": 100000, "description": "Text for a text field, an option's label for a select, true or false for a checkbox or radio."}
        },
        "required": ["ref", "value"],
        "additionalProperties": false
      }
    }
  },
  "required": ["fields"],
  "additionalProperties": false
}`
