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

async function api(method, path, body, raw) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = raw ? body : JSON.stringify(body);
    init.headers["Content-Type"] = raw ? "text/plain" : "application/json";
  }
  const response = await fetch(path, init);
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    const reason = (data && data.error) || `${response.status} ${response.statusText}`;
    throw new Error(reason);
  }
  return data;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
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
    label.title = opt.type;
    label.textContent = opt.name + " ";
    const input = document.createElement("input");
    input.id = "opt-" + opt.name;
    input.value = optionText(opt.default);
    input.dataset.default = optionText(opt.default);
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
    opponents: $("opponents").value.split(/[,\s]+/).filter((s) => s),
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
  $("setup").hidden = true;
  $("table").hidden = false;
  document.body.dataset.state = "playing";
  drawTable();
  playOthers();
}

// ------------------------------------------------------------------ the table
function drawTable() {
  document.body.dataset.step = String(view.step);
  document.body.dataset.table = view.table;
  $("picture").src = view.picture;
  $("text").textContent = view.text;
  $("text").hidden = !$("show-text").checked;
  const moves = $("moves");
  moves.innerHTML = "";
  for (const m of view.moves) {
    const li = document.createElement("li");
    li.textContent = `${m.seat === view.seat ? "you" : m.seat}: ${m.name}`;
    if (m.seat === view.seat) li.className = "mine";
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
    $("result").innerHTML =
      `<strong>You finished rank ${r.you.rank}</strong> (score ${r.you.score}, reward ${r.you.reward.toFixed(3)}).` +
      `<table class="standings"><tr><th>seat</th><th>score</th><th>rank</th><th>reward</th></tr>${rows}</table>`;
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

function closeTable() {
  if (view && view.table) navigator.sendBeacon(`/api/tables/${view.table}/close`);
  view = null;
}

async function saveRecord() {
  try {
    const line = await api("GET", `/api/tables/${view.table}/record`);
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
    const data = await api("POST", `/api/records?name=${encodeURIComponent(file.name)}`, text, true);
    await loadRecords(data.added[0].record);
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
  try {
    catalogue = (await api("GET", "/api/games")).games;
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
  window.addEventListener("pagehide", closeTable);
  if (params.get("panel") === "replay") showPanel("replay");
  document.body.dataset.ready = "1";
}

init();
