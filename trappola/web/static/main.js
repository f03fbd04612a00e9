// Trappola lab in the browser: three views over the JSON API (trappola/web/app.py).
// The address says what is shown: #play/<table>, #replay/<file>/<game>/<step>, #leaderboard.
import { $, el, api, showError } from "./util.js";
import { setupPlay, resume, currentTableId } from "./play.js";
import { setupReplay, resumeReplay } from "./replay.js";
import { setupLeaderboard, drawBoard } from "./leaderboard.js";

const VIEWS = ["play", "replay", "leaderboard"];

function route() {
  const [view0, ...rest] = (location.hash || "#play").slice(1).split("/");
  const view = VIEWS.includes(view0) ? view0 : "play";
  for (const name of VIEWS) {
    $(`view-${name}`).hidden = name !== view;
    document.querySelector(`nav a[data-view=${name}]`).classList.toggle("active", name === view);
  }
  if (view === "play" && rest[0] && rest[0] !== currentTableId()) resume(rest[0]);
  if (view === "play" && !rest[0] && currentTableId()) history.replaceState(null, "", `#play/${currentTableId()}`);
  if (view === "replay" && rest[0]) resumeReplay(rest[0], rest[1] === undefined ? null : Number(rest[1]), Number(rest[2] || 0));
  if (view === "leaderboard") drawBoard();
}

window.addEventListener("hashchange", route);
setupPlay();
setupReplay();
setupLeaderboard();
route();
(async () => {
  try {
    const players = await api("GET", "/api/players");
    $("player-list").replaceChildren(...players.map((p) => el("option", { value: p.name },
      `${p.about} (settings: ${p.settings.join(", ") || "none"})`)));
  } catch (e) { showError(e.message); }
})();
