// card_envs web table: the page's script. Everything shown comes from the server's JSON, which
// holds only what the person's seat sees; this script draws it and sends the person's choices.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let catalogue = [];
let view = null; // the person's view of the table (the server's JSON)
let busy = false; // a request for this table is on its way: buttons wait
let replay = { id: null, seat: null, step: 0, data: null, timer: null };

// ------------------------------------------------------------------ requests and errors
function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = !text;
}

// The server's secret for requests that change something: the page is served with it, and no
// other page can read it (the server refuses requests without it).
const SECRET = document.querySelector('meta[name="card-envs-secret"]').content;
const TABLE_KEY = "card_envs.table"; // this tab's table, so that a reload rejoins the game

function init_(method, body, keepalive) {
  const init = { method, headers: {}, keepalive: Boolean(keepalive) };
  if (method !== "GET") {
    init.headers["X-Card-Envs-Token"] = SECRET;
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  return init;
}

// A request to the server: its JSON (or, with asText, its exact text). A table busy with a move
// answers 409 "busy": asked again shortly.
async function api(method, path, body, asText) {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(path, init_(method, body));
    if (asText && response.ok) return await response.text();
    const type = response.headers.get("Content-Type") || "";
    const data = type.includes("application/json") ? await response.json() : await response.text();
    if (response.ok) return data;
    const reason = (data && data.error) || `${response.status} ${response.statusText}`;
    if (response.status === 409 && reason.startsWith("busy") && attempt < 200) {
      await sleep(150);
      continue;
    }
    const error = new Error(reason);
    error.status = response.status;
    throw error;
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
const pace = () => (params.has("pace") ? Number(params.get("pace")) : Number($("pace").value));

// ------------------------------------------------------------------ the setup form
function gameEntry() {
  return catalogue.find((g) => g.env === $("game").value);
}

function optionText(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function drawOptions() {
  const box = $("options");
  box.querySelectorAll("label").forEach((l) => l.remove());
  for (const opt of gameEntry().options) {
    const label = document.createElement("label");
    label.title = opt.max === undefined ? opt.type : `${opt.type}, at most ${opt.max} here`;
    label.textContent = opt.name + " ";
    const input = document.createElement("input");
    input.id = "opt-" + opt.name;
    // the form starts at the game's benchmark table; only what the person changes is sent
    input.value = optionText(opt.table);
    input.dataset.default = optionText(opt.table);
    label.appendChild(input);
    box.appendChild(label);
  }
}

function optionValue(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    return text; // a word: "random", "never", ...
  }
}

function chosenOptions() {
  const out = {};
  for (const opt of gameEntry().options) {
    const input = $("opt-" + opt.name);
    if (input.value.trim() !== input.dataset.default) out[opt.name] = optionValue(input.value.trim());
  }
  return out;
}

async function startGame(event) {
  if (event) event.preventDefault();
  showError("");
  closeTable();
  const seedText = $("seed").value.trim();
  const body = {
    env: $("game").value,
    options: chosenOptions(),
    seat: Number($("seat").value || 0),
    opponents: $("opponents").value.split("\n").map((s) => s.trim()).filter((s) => s),
    seed: seedText === "" ? null : Number(seedText),
  };
  $("start").disabled = true;
  try {
    view = await api("POST", "/api/tables", body);
  } catch (e) {
    showError(e.message);
    return;
  } finally {
    $("start").disabled = false;
  }
  sessionStorage.setItem(TABLE_KEY, view.table);
  showTable();
}

function showTable() {
  $("setup").hidden = true;
  $("table").hidden = false;
  document.body.dataset.state = "playing";
  drawTable();
  playOthers();
}

// After a reload: the tab's game in play, if the server still has it.
async function rejoin() {
  const id = sessionStorage.getItem(TABLE_KEY);
  if (!id) return;
  let found;
  try {
    found = await api("GET", `/api/tables/${encodeURIComponent(id)}`);
  } catch (e) {
    sessionStorage.removeItem(TABLE_KEY);
    if (e.status === 404) showError(`Your last game is gone: ${e.message}`);
    return;
  }
  if (found.over) {
    sessionStorage.removeItem(TABLE_KEY);
    return;
  }
  view = found;
  showTable();
}

// ------------------------------------------------------------------ the table
function drawTable() {
  document.body.dataset.step = String(view.step);
  document.body.dataset.table = view.table;
  $("picture").src = view.picture;
  $("table-line").textContent =
    `${view.env}: ` + Object.entries(view.options).map(([k, v]) => `${k}=${optionText(v)}`).join(" ");
  $("text").textContent = view.text;
  $("text").hidden = !$("show-text").checked;
  const moves = $("moves");
  moves.innerHTML = "";
  for (const m of view.moves) {
    const li = document.createElement("li");
    const who = m.seat === view.seat ? "you" : m.seat;
    const revealed = m.name.startsWith("revealed: ");
    li.textContent = revealed ? `${who} revealed: ${m.name.slice(10)}` : `${who}: ${m.name}`;
    li.className = (m.seat === view.seat ? "mine" : "") + (revealed ? " revealed" : "");
    moves.appendChild(li);
  }
  moves.parentElement.scrollTop = moves.parentElement.scrollHeight;
  const actions = $("actions");
  actions.innerHTML = "";
  for (const a of view.actions) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "action";
    button.textContent = a.name;
    button.dataset.action = a.action;
    button.addEventListener("click", () => act(a.action));
    actions.appendChild(button);
  }
  const seats = view.seats.map((s) => `${s.seat}: ${s.agent}`).join(", ");
  if (view.over) {
    $("status").textContent = `Game over. ${seats}`;
    const r = view.result;
    const rows = r.seats
      .map((s) => `<tr><td>${s.seat === view.seat ? "you" : s.seat}</td><td>${s.score}</td><td>${s.rank}</td><td>${s.reward.toFixed(3)}</td></tr>`)
      .join("");
    const head = r.cut_short
      ? `<strong>The game was cut short by the table's turn or round limit</strong>: nobody finished by the rules; ` +
        `the standings below are as the game left them (you: rank ${r.you.rank}, score ${r.you.score}, ` +
        `reward ${r.you.reward.toFixed(3)}).`
      : `<strong>You finished rank ${r.you.rank}</strong> (score ${r.you.score}, reward ${r.you.reward.toFixed(3)}).`;
    $("result").innerHTML =
      head + `<table class="standings"><tr><th>seat</th><th>score</th><th>rank</th><th>reward</th></tr>${rows}</table>`;
    $("result").hidden = false;
    $("save-record").disabled = false;
    document.body.dataset.state = "over";
  } else {
    $("result").hidden = true;
    $("save-record").disabled = true;
    $("status").textContent = view.your_turn
      ? `Your turn (${view.seat}, step ${view.step}). ${seats}`
      : `Waiting for the others (step ${view.step}). ${seats}`;
    document.body.dataset.state = view.your_turn ? "your-turn" : "playing";
  }
}

async function playOthers() {
  const id = view.table;
  while (view && view.table === id && view.waiting) {
    await sleep(pace());
    if (!view || view.table !== id) return;
    try {
      view = await api("POST", `/api/tables/${id}/advance`);
    } catch (e) {
      showError(e.message);
      return;
    }
    drawTable();
  }
}

async function act(action) {
  if (busy || !view || !view.your_turn) return;
  busy = true;
  showError("");
  $("actions").querySelectorAll("button").forEach((b) => (b.disabled = true));
  try {
    view = await api("POST", `/api/tables/${view.table}/act`, { action, step: view.step, seat: view.seat });
  } catch (e) {
    showError(e.message);
    $("actions").querySelectorAll("button").forEach((b) => (b.disabled = false));
    return;
  } finally {
    busy = false;
  }
  drawTable();
  playOthers();
}

// Closing the table (a new game, leaving the page); a reload keeps it, to rejoin.
function closeTable() {
  if (view && view.table) fetch(`/api/tables/${view.table}/close`, init_("POST", {}, true)).catch(() => {});
  sessionStorage.removeItem(TABLE_KEY);
  view = null;
}

async function saveRecord() {
  try {
    const line = await api("GET", `/api/tables/${view.table}/record`, undefined, true);
    const blob = new Blob([line], { type: "application/x-ndjson" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `${view.env}.jsonl`;
    a.click();
  } catch (e) {
    showError(e.message);
  }
}

function newGame() {
  closeTable();
  $("table").hidden = true;
  $("setup").hidden = false;
  document.body.dataset.state = "setup";
}

// ------------------------------------------------------------------ the replay viewer
async function loadRecords(select) {
  const data = await api("GET", "/api/records");
  const box = $("record");
  box.innerHTML = "";
  for (const r of data.records) {
    const o = document.createElement("option");
    o.value = r.record;
    o.textContent = `${r.source}:${r.line} ${r.env} (${r.actions} actions, ranks ${JSON.stringify(r.ranks)})`;
    o.dataset.seats = JSON.stringify(r.seats);
    box.appendChild(o);
  }
  if (select) box.value = select;
  if (box.value) pickRecord();
}

async function uploadRecords() {
  const file = $("records-file").files[0];
  if (!file) return;
  showError("");
  try {
    const text = await file.text();
    const data = await api("POST", "/api/records", { name: file.name, records: text });
    await loadRecords(data.added[0].record);
    if (data.note) showError(data.note);
  } catch (e) {
    showError(e.message);
  }
}

function pickRecord() {
  const option = $("record").selectedOptions[0];
  if (!option) return;
  const views = $("view");
  views.innerHTML = '<option value="">spectator</option>';
  for (const seat of JSON.parse(option.dataset.seats)) {
    const o = document.createElement("option");
    o.value = seat;
    o.textContent = `as ${seat} saw it`;
    views.appendChild(o);
  }
  replay = { id: option.value, seat: null, step: 0, data: null, timer: null };
  $("replay").hidden = false;
  showStep(0);
}

async function showStep(step) {
  const seat = $("view").value;
  const query = seat ? `?seat=${encodeURIComponent(seat)}` : "";
  try {
    replay.data = await api("GET", `/api/records/${replay.id}/steps/${step}${query}`);
  } catch (e) {
    showError(e.message);
    stopPlaying();
    return;
  }
  const d = replay.data;
  replay.step = d.step;
  $("replay-picture").src = d.picture;
  $("replay-text").textContent = d.text;
  $("step-label").textContent = `step ${d.step}` + (d.steps !== undefined ? ` of ${d.steps}` : "") + (d.last ? " (the end)" : "");
  const moves = $("replay-moves");
  moves.innerHTML = "";
  for (const m of d.moves) {
    const li = document.createElement("li");
    li.textContent = `${m.seat}: ${m.name}`;
    moves.appendChild(li);
  }
  moves.parentElement.scrollTop = moves.parentElement.scrollHeight;
  $("back").disabled = $("first").disabled = d.step === 0;
  $("forward").disabled = d.last;
  $("last").disabled = d.last || d.steps === undefined;
  const r = d.result;
  $("replay-result").hidden = !r;
  if (r) $("replay-result").textContent = `Game over (${r.end}): scores ${JSON.stringify(r.scores)}, ranks ${JSON.stringify(r.ranks)}`;
  document.body.dataset.replayStep = String(d.step);
  if (d.last) stopPlaying();
}

function stopPlaying() {
  if (replay.timer) clearInterval(replay.timer);
  replay.timer = null;
}

function togglePlaying() {
  if (replay.timer) return stopPlaying();
  replay.timer = setInterval(() => {
    if (replay.data && !replay.data.last) showStep(replay.step + 1);
  }, Math.max(pace(), 200));
}

// ------------------------------------------------------------------ wiring
function showPanel(name) {
  $("play-panel").hidden = name !== "play";
  $("replay-panel").hidden = name !== "replay";
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-replay").classList.toggle("active", name === "replay");
  if (name === "replay") loadRecords().catch((e) => showError(e.message));
}

async function init() {
  let offer;
  try {
    offer = await api("GET", "/api/games");
    catalogue = offer.games;
  } catch (e) {
    showError(e.message);
    return;
  }
  for (const g of catalogue) {
    const o = document.createElement("option");
    o.value = g.env;
    o.textContent = g.title;
    $("game").appendChild(o);
  }
  const offered = $("offered-list");
  for (const a of offer.agents) {
    const li = document.createElement("li");
    li.textContent = `${a.agent}: ${a.about}`;
    offered.appendChild(li);
  }
  drawOptions();
  $("game").addEventListener("change", drawOptions);
  $("setup-form").addEventListener("submit", startGame);
  $("new-game").addEventListener("click", newGame);
  $("save-record").addEventListener("click", saveRecord);
  $("show-text").addEventListener("change", () => ($("text").hidden = !$("show-text").checked));
  $("tab-play").addEventListener("click", () => showPanel("play"));
  $("tab-replay").addEventListener("click", () => showPanel("replay"));
  $("records-file").addEventListener("change", uploadRecords);
  $("record").addEventListener("change", pickRecord);
  $("view").addEventListener("change", () => showStep(replay.step));
  $("first").addEventListener("click", () => showStep(0));
  $("back").addEventListener("click", () => showStep(Math.max(replay.step - 1, 0)));
  $("forward").addEventListener("click", () => showStep(replay.step + 1));
  $("last").addEventListener("click", () => replay.data && replay.data.steps !== undefined && showStep(replay.data.steps));
  $("play").addEventListener("click", togglePlaying);
  if (params.get("panel") === "replay") showPanel("replay");
  else await rejoin();
  document.body.dataset.ready = "1";
}

init();
