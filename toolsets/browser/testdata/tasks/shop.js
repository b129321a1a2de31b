// The shop's 200 items are built here from a fixed list so the page is
// one static file; adding an item asks the server, which keeps the cart.
const colours = ["Red", "Blue", "Green", "Black", "White", "Silver", "Golden", "Purple", "Orange", "Teal"];
const things = ["Widget", "Gadget", "Lamp", "Mug", "Backpack", "Notebook", "Kettle", "Scarf", "Speaker", "Clock",
  "Chair", "Pillow", "Bottle", "Wallet", "Helmet", "Jacket", "Candle", "Basket", "Blanket", "Plant"];
const list = document.getElementById("items");
for (let i = 0; i < 200; i++) {
  const name = colours[i % 10] + " " + things[Math.floor(i / 10)];
  const li = document.createElement("li");
  li.innerHTML = `<h3></h3><p>In stock. Ships in 2 days. $${(5 + (i * 7) % 90)}.99</p>` +
    `<button type="button">Add to cart</button>`;
  li.querySelector("h3").textContent = name;
  const btn = li.querySelector("button");
  btn.setAttribute("aria-label", "Add " + name + " to cart");
  btn.addEventListener("click", async () => {
    const r = await fetch("/tasks/cart", {method: "POST", body: new URLSearchParams({item: name})});
    const n = await r.text();
    document.getElementById("cart").textContent = "Cart: " + n + (n === "1" ? " item" : " items");
  });
  list.appendChild(li);
}
