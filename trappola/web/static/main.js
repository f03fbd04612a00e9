// Trappola lab in the browser: five views over the JSON API (trappola/web/app.py).
// The address says what is shown: #play/<table>, #replay/<file>/<game>/<step>, #leaderboard, #analysis, #rules.
import { $, el, api, showError, suitIcon } from "./util.js";
import { setupPlay, resume, currentTableId } from "./play.js";
import { setupReplay, resumeReplay } from "./replay.js";
import { setupLeaderboard, drawBoard } from "./leaderboard.js";
import { setupAnalysis } from "./analysis.js";

const VIEWS = ["play", "replay", "leaderboard", "analysis", "rules"];
let shownView = null;
let rulesLoaded = false;

// The rules panel: built from docs/rules.md (trappola/web/rules_page.py), a file of the page itself.
async function showRules() {
  if (rulesLoaded) return;
  rulesLoaded = true;
  for (const cell of document.querySelectorAll("#legend-suits td[data-suit]")) cell.replaceChildren(suitIcon(cell.dataset.suit, "legend-pip"));
  try {
    const res = await fetch("/static/rules.html");
    if (!res.ok) throw new Error(`the rules could not be loaded (${res.status})`);
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    $("rules-text").replaceChildren(...doc.body.childNodes);
  } catch (e) { rulesLoaded = false; showError(e.message); }
}

function route() {
  const [view0, ...rest] = (location.hash || "#play").slice(1).split("/");
  const view = VIEWS.includes(view0) ? view0 : "play";
  if (view !== shownView) window.scrollTo(0, 0);  // a view's heading is the link's target: the page is not scrolled to it
  shownView = view;
  for (const name of VIEWS) {
    $(`view-${name}`).hidden = name !== view;
    const link = document.querySelector(`nav a[data-view=${name}]`);
    link.classList.toggle("active", name === view);
    if (name === view) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  if (view === "play" && rest[0] && rest[0] !== currentTableId()) resume(rest[0]);
  if (view === "play" && !rest[0] && currentTableId()) history.replaceState(null, "", `#play/${currentTableId()}`);
  if (view === "replay" && rest[0]) resumeReplay(rest[0], rest[1] === undefined ? null : Number(rest[1]), Number(rest[2] || 0));
  if (view === "leaderboard") drawBoard();
  if (view === "rules") showRules();
}

window.addEventListener("hashchange", route);
// The skip link moves the focus to the view without changing the address (which names the view).
document.querySelector(".skip-link").addEventListener("click", (ev) => { ev.preventDefault(); $("main").focus(); });
setupPlay();
setupReplay();
setupLeaderboard();
setupAnalysis();
route();
(async () => {
  try {
    const players = await api("GET", "/api/players");
    $("player-list").replaceChildren(...players.map((p) => el("option", { value: p.name },
      `${p.about} (settings: ${p.settings.join(", ") || "none"})`)));
  } catch (e) { showError(e.message); }
})();
