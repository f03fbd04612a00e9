// Leaderboard: an evaluate --json summary as tables with 95% intervals (trappola/web/leaderboard.py).
// A pair whose games are open in Replay links to them.
import { $, el, api, showError, readFile } from "./util.js";
import { openReplayFile, showPair } from "./replay.js";

let shown = null;  // the latest tables, redrawn when a replay file is opened

function gamesOf(pair) {
  const file = openReplayFile();
  if (!file || !pair) return 0;
  return file.games.filter((g) => {
    const p = g.pair || g.players;
    return (p[0] === pair[0] && p[1] === pair[1]) || (p[0] === pair[1] && p[1] === pair[0]);
  }).length;
}

function gamesLink(pair) {
  const n = gamesOf(pair);
  if (!n) return null;
  return el("a", { href: "#replay", class: "games-link", onclick: (ev) => { ev.preventDefault(); location.hash = "#replay"; showPair(pair); } },
    `${n} games`);
}

export function drawBoard() {
  if (!shown) return;
  const file = openReplayFile();
  $("board").replaceChildren(...shown.tables.map((t) => {
    const links = t.pairs;
    const head = gamesLink(t.pair);
    return el("table", { class: "leader-table" },
      el("caption", {}, t.caption, head ? [" · ", head] : []),
      el("tr", {}, t.columns.map((c) => el("th", {}, c)), links && file ? el("th", {}, "saved games") : null),
      t.rows.map((r, i) => el("tr", {}, r.map((c) => el("td", {}, c)),
        links && file ? el("td", {}, gamesLink(links[i]) || "-") : null)));
  }));
  const hint = $("board-hint");
  hint.hidden = Boolean(file) || !shown.tables.some((t) => t.pairs || t.pair);
}

export function setupLeaderboard() {
  $("board-file").addEventListener("change", async () => {
    try {
      shown = await api("POST", "/api/leaderboard", await readFile($("board-file")), "application/json");
      drawBoard();
      showError("");
    } catch (e) { shown = null; $("board").replaceChildren(); showError(e.message); }
  });
}
