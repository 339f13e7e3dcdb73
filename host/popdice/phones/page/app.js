// One player's Lowdown board, live over a websocket. The server sends the page (what the
// rules let this player see and do) and this draws it; a choice is sent back as a move.
"use strict";

const token = location.pathname.split("/").pop();
let page = null;
let pick = { number: null, colour: null, mode: "write" };
let socket = null;
let wait = 500;

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/${token}`);
  socket.onopen = () => { wait = 500; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.reply) {
      $("reply").textContent = message.reply.accepted ? "" : message.reply.text;
      if (message.reply.accepted) pick = { number: null, colour: null, mode: "write" };
    }
    if (message.page) { page = message.page; keepPick(); draw(); }
  };
  socket.onclose = (event) => {
    if (event.code === 4403 || event.code === 4429) {  // refused: so would a page connecting again
      $("status").textContent = event.reason;
      return;
    }
    $("status").textContent = "connection lost: reconnecting…";
    setTimeout(connect, wait);
    wait = Math.min(wait * 2, 5000);
  };
}

function send(move) {  // with what this page showed: a move from a page left behind is refused
  const sent = { ...move, choices: page.choices };
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(sent));
}

function keepPick() {
  const mine = page.mine;
  if (pick.number !== null && pick.number >= mine.numbers.length) pick.number = null;
  if (pick.colour !== null && pick.colour >= mine.colours.length) pick.colour = null;
  const modes = mine.actions.map((a) => a.key);
  if (pick.mode !== "write" && !modes.includes(pick.mode)) pick.mode = "write";
}

function litBoxes() {
  const mine = page.mine;
  if (pick.mode === "blackout") return mine.blackout;
  if (pick.number === null) return [];
  if (pick.mode === "wild") {
    const key = mine.wild_drops ? `${pick.number},${pick.colour}` : `${pick.number}`;
    return mine.wild[key] || [];
  }
  if (pick.colour === null) return [];
  return mine.pairs[`${pick.number},${pick.colour}`] || [];
}

function colourWord(colour) {
  return el("span", { class: `c-${colour}` }, `${colour[0]} ${colour}`);
}

function drawDice() {
  const dice = page.dice;
  const parts = [];
  if (dice.numbers.length) parts.push(`open: ${dice.numbers.join(" ")} ${dice.colours.join(" ")}`);
  if (dice.hidden) parts.push(`hidden: ${dice.hidden[1]} ${dice.hidden[0]}`);
  else if (dice.hidden_rolled) parts.push("hidden: ? ?");
  $("dice").textContent = parts.join(" · ") || "no dice yet";
}

function drawPick() {
  const mine = page.mine;
  const box = $("pick");
  box.replaceChildren();
  const toggle = (kind, index) => () => { pick[kind] = pick[kind] === index ? null : index; draw(); };
  mine.numbers.forEach((n, i) => box.append(el("button", {
    "aria-pressed": String(pick.number === i), "aria-label": `number die ${n}`,
    onclick: toggle("number", i) }, String(n))));
  mine.colours.forEach((c, i) => box.append(el("button", {
    "aria-pressed": String(pick.colour === i), "aria-label": `colour die ${c}`,
    onclick: toggle("colour", i) }, colourWord(c))));
  for (const action of mine.actions) {
    const mode = action.key === "wild" || action.key === "blackout";
    box.append(el("button", {
      title: action.says, "aria-label": `${action.key}: ${action.says}`,
      "aria-pressed": String(mode && pick.mode === action.key),
      onclick: mode
        ? () => { pick.mode = pick.mode === action.key ? "write" : action.key; draw(); }
        : () => send({ kind: "action", action: action.key }),
    }, action.key));
  }
  for (const cross of mine.crossings) {
    box.append(el("button", { "aria-label": `cross out ${cross.label}`,
      onclick: () => send({ kind: "cross", grid: cross.grid, line: cross.line }) },
      `cross ${cross.label}`));
  }
  if (!box.childElementCount) box.append(el("p", {}, "nothing to do now: wait for the others"));
}

function boxLabel(grid, row, col, cell) {
  const where = `${grid.short} row ${row + 1} column ${col + 1}`;
  if (cell.value === "X") return `${where}: blacked out`;
  if (cell.value !== null) return `${where}: ${cell.value}${cell.crossed ? ", crossed out" : ""}`;
  return `${where}: empty, takes ${cell.takes.join(" or ")}`;
}

function drawBoard(seat, playable) {
  const board = page.boards[seat];
  const lit = playable ? litBoxes().map((b) => b.join("|")) : [];
  const grids = el("div", { class: "grids" });
  page.grids.forEach((grid) => {
    const node = el("div", { class: "grid", role: "group", "aria-label": grid.short });
    node.append(el("div", { class: "grid-name" }, grid.short));
    board.grids[grid.name].forEach((cells, row) => cells.forEach((cell, col) => {
      const key = [grid.name, row, col].join("|");
      const isLit = lit.includes(key);
      const shown = cell.value !== null ? String(cell.value) : cell.takes.map((c) => c[0]).join("");
      const classes = ["box", isLit ? "lit" : "", cell.crossed ? "crossed" : "",
        cell.value === null && cell.takes.length === 1 ? `c-${cell.takes[0]}` : ""].join(" ");
      const attrs = { class: classes, "aria-label": boxLabel(grid, row, col, cell) + (isLit ? " (you may write here)" : "") };
      if (isLit) {
        attrs.onclick = () => send({ kind: "box", mode: pick.mode, number: pick.number,
          colour: pick.colour, box: [grid.name, row, col] });
      } else attrs.disabled = "";
      node.append(el("button", attrs, shown));
    }));
    grids.append(node);
  });
  const name = page.players[seat];
  const head = el("p", {}, `${name}: ${page.scores[seat]} pts, wild ${board.wilds}/${board.wild_boxes}`
    + (board.role ? ` · ${board.role}` : "") + (seat === page.active ? " · active" : ""));
  return el("div", { class: playable ? "" : "small" }, head, grids);
}

function draw() {
  $("title").textContent = `Lowdown · ${page.players[page.you]}`;
  $("status").textContent = `turn ${page.turn} · ${page.status}`;
  drawDice();
  drawPick();
  $("mine").replaceChildren(drawBoard(page.you, true));
  $("others").replaceChildren(...page.players.map((_, seat) => seat)
    .filter((seat) => seat !== page.you).map((seat) => drawBoard(seat, false)));
  $("log").replaceChildren(...page.log.map((line) => el("li", {}, line)));
}

connect();
