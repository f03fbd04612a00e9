// Leaderboard: an evaluate --json summary as tables with 95% intervals (trappola/web/leaderboard.py).
// A pair whose games are open in Replay links to them.
import { $, el, api, showError, readFile } from "./util.js";
import { openReplayFile, showPair } from "./replay.js";

let shown = null;  // the latest tables, redrawn when a replay file is opened

// The games of ``pair`` from the run the summary describes: same players, same kind of run, no more deals
// than it played, and its first deal dealt the cards the summary's seed deals (trappola/web/runs.py).
function gamesOf(pair, run) {
  const file = openReplayFile();
  if (!file || !pair || !run) return 0;
  const mine = file.games.filter((g) => {
    const p = g.pair || g.players;
    const same = (p[0] === pair[0] && p[1] === pair[1]) || (p[0] === pair[1] && p[1] === pair[0]);
    return same && g.evaluation === run.evaluation && g.deal_index !== null && g.deal_index < run.deals;
  });
  const first = mine.filter((g) => g.deal_index === 0);
  return first.length && first.every((g) => g.deal_key === run.deal0) ? mine.length : 0;
}

function gamesLink(pair, run) {
  const n = gamesOf(pair, run);
  if (!n) return null;
  return el("a", { href: "#replay", class: "games-link", onclick: (ev) => { ev.preventDefault(); location.hash = "#replay"; showPair(pair, run); } },
    `${n} games`);
}

export function drawBoard() {
  if (!shown) return;
  const file = openReplayFile();
  $("board").replaceChildren(...shown.tables.map((t) => {
    const links = t.pairs;
    const head = gamesLink(t.pair, t.run);
    return el("table", { class: "leader-table" },
      el("caption", {}, t.caption, head ? [" · ", head] : []),
      el("tr", {}, t.columns.map((c) => el("th", { scope: "col" }, c)), links && file ? el("th", { scope: "col" }, "saved games") : null),
      t.rows.map((r, i) => el("tr", {}, r.map((c) => el("td", {}, c)),
        links && file ? el("td", {}, gamesLink(links[i], t.runs[i]) || "-") : null)));
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
