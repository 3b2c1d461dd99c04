/* The host's page: the countdown, the live vote count, the chart, the secret moves.
   No library; every text from the server goes in as text (textContent), never as HTML,
   except the chart, which is the server's own escaped SVG. */
"use strict";

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

/* --- the countdown: the server's clock, ticking in the browser ------------------------ */
function startCountdowns() {
  const all = document.querySelectorAll(".countdown[data-deadline]");
  all.forEach(function (node) {
    const deadline = Date.parse(node.dataset.deadline);
    const offset = Date.parse(node.dataset.now) - Date.now();   // server clock - ours
    const units = node.dataset.units.split("|");
    function tick() {
      let left = Math.floor((deadline - (Date.now() + offset)) / 1000);
      if (left <= 0) { node.textContent = node.dataset.passed; node.classList.add("passed"); return; }
      const d = Math.floor(left / 86400); left -= d * 86400;
      const h = Math.floor(left / 3600); left -= h * 3600;
      const m = Math.floor(left / 60); const s = left - m * 60;
      const parts = [];
      if (d) parts.push(d + " " + units[0]);
      parts.push(h + " " + units[1], String(m).padStart(2, "0") + " " + units[2],
                 String(s).padStart(2, "0") + " " + units[3]);
      node.textContent = parts.join(" ");
    }
    tick();
    setInterval(tick, 1000);
  });
}

/* --- the live count ------------------------------------------------------------------- */
/* a vote's link: the address the server gives (the board's own post link), http(s) only */
function postLink(v) { return v && /^https?:\/\//.test(v.url || "") ? v.url : null; }

function renderCount(box, data) {
  const byVoter = {};
  data.votes.forEach(function (v) { byVoter[v.voter] = v; });
  const frag = document.createDocumentFragment();
  const ol = el("ol", {class: "candidates"});
  data.counts.forEach(function (c) {
    const li = el("li");
    li.appendChild(el("b", {class: "target"}, c.target));
    li.appendChild(document.createTextNode(" — "));
    li.appendChild(el("span", {class: "votes"}, String(c.votes)));
    li.appendChild(document.createTextNode(": "));
    c.voters.forEach(function (nick, i) {
      const url = postLink(byVoter[nick]);
      if (url) {
        li.appendChild(el("a", {href: url, rel: "noreferrer noopener",
                                target: "_blank"}, nick));
      } else {
        li.appendChild(document.createTextNode(nick));
      }
      // R14: the Mayor's vote counts as two
      if (c.doubled && c.doubled.indexOf(nick) >= 0) {
        li.appendChild(document.createTextNode(" "));
        li.appendChild(el("span", {class: "double"}, "×2"));
      }
      if (i < c.voters.length - 1) li.appendChild(document.createTextNode(", "));
    });
    ol.appendChild(li);
  });
  frag.appendChild(ol);
  frag.appendChild(el("p", {class: "not-voting"}, data.not_voting.length
    ? box.dataset.lNotVoting + ": " + data.not_voting.join(", ") : box.dataset.lAllVoted));
  if (data.frozen && data.frozen.length) {
    frag.appendChild(el("p", {class: "frozen"}, box.dataset.lFrozen + ": " + data.frozen.join(", ")));
  }
  if (data.pardoned && data.spared) {     // R14: the Judge's pardon, as resolve says
    const p = el("p", {class: "lynch pardoned"}, box.dataset.lPardoned + ": ");
    p.appendChild(el("b", {}, data.spared));
    frag.appendChild(p);
  }
  if (data.lynch) {
    const p = el("p", {class: "lynch"}, box.dataset.lLynch + ": ");
    p.appendChild(el("b", {}, data.lynch.player));
    if (data.lynch.by === "random") p.appendChild(document.createTextNode(" (" + box.dataset.lRandom + ")"));
    frag.appendChild(p);
  }
  box.replaceChildren(frag);
  const asOf = document.getElementById("as-of");
  if (asOf) asOf.textContent = box.dataset.lAsOf + " " + data.as_of.slice(11, 19);
}

function startCount() {
  const box = document.getElementById("count");
  if (!box) return;
  let last = null;
  async function refresh() {
    try {
      const r = await fetch(box.dataset.api, {credentials: "same-origin", cache: "no-store"});
      if (!r.ok) throw new Error(String(r.status));
      const data = await r.json();
      const key = JSON.stringify([data.votes, data.counts, data.not_voting, data.lynch || null,
                                   data.spared || null]);
      renderCount(box, data);
      box.dataset.refreshed = String((Number(box.dataset.refreshed) || 0) + 1);
      if (last !== null && key !== last) refreshChart(box.dataset.chart);
      last = key;
      box.classList.remove("stale");
    } catch (e) {
      box.classList.add("stale");
      box.title = box.dataset.lFailed + ": " + e.message;
    }
  }
  // the page came with the count: the first refresh is due in 5 s, like every later one
  setInterval(refresh, 5000);
}

async function refreshChart(url) {
  const r = await fetch(url, {credentials: "same-origin", cache: "no-store"});
  if (!r.ok) return;
  const svg = await r.text();
  const chart = document.getElementById("chart");
  if (svg && chart) chart.innerHTML = svg;    // the server's own SVG, every text escaped
}

/* --- the moves, only after a click ------------------------------------------------------ */
function pairs(text) {
  const out = {};
  text.split(";").forEach(function (kv) {
    const i = kv.indexOf("="); if (i > 0) out[kv.slice(0, i)] = kv.slice(i + 1);
  });
  return out;
}

/* "2024-03-14T12:00:05+03:00" (the game's time) -> "14.03 12:00" */
function shortTime(iso) {
  return iso.slice(8, 10) + "." + iso.slice(5, 7) + " " + iso.slice(11, 16);
}

function renderSecret(box, btn, data) {
  const kinds = pairs(btn.dataset.kinds), statuses = pairs(btn.dataset.statuses);
  box.replaceChildren();
  const table = el("table", {class: "moves-table"});
  if (!data.moves.length) box.appendChild(el("p", {}, btn.dataset.lNoMoves));
  data.moves.forEach(function (m) {
    const tr = el("tr", {class: "move " + m.status});
    [shortTime(m.received_at), m.player, m.role_name,
     m.kind ? (kinds[m.kind] || m.kind) : "—", m.target || "—",
     (statuses[m.status] || m.status) + (m.why ? ": " + m.why : "")].forEach(function (t) { tr.appendChild(el("td", {}, t)); });
    table.appendChild(tr);
  });
  if (data.moves.length) box.appendChild(table);
  const wait = el("p", {class: "awaiting"});
  if (data.resolved) {
    // a resolved day awaits nothing: no line about moves still to come
  } else if (data.awaiting.length) {
    wait.textContent = btn.dataset.lAwaiting + ": " + data.awaiting.map(function (a) {
      return a.role_name + " — " + a.player + " (" + (kinds[a.kind] || a.kind) + ")";
    }).join("; ");
  } else {
    wait.textContent = btn.dataset.lNone;
  }
  if (!data.resolved) box.appendChild(wait);
  if (data.report) {
    const d = el("details", {class: "report"});
    d.appendChild(el("summary", {}, btn.dataset.lReport + " (" + btn.dataset.lDay.toLowerCase() + " " + data.report_day + ")"));
    d.appendChild(el("pre", {}, data.report));
    box.appendChild(d);
  }
}

function startReveal() {
  const btn = document.getElementById("reveal");
  const box = document.getElementById("secret");
  if (!btn || !box) return;
  btn.addEventListener("click", async function () {
    if (!box.hidden) {                 // hide: and forget what was shown
      box.hidden = true; box.replaceChildren(); btn.textContent = btn.dataset.lShow; return;
    }
    const r = await fetch(btn.dataset.api, {credentials: "same-origin", cache: "no-store"});
    if (!r.ok) return;
    renderSecret(box, btn, await r.json());
    box.hidden = false;
    btn.textContent = btn.dataset.lHide;
  });
}

/* --- "Select all" in a post's [code] block (the board's own onclick is not allowed here) ----- */
function startSelectCode() {
  document.addEventListener("click", function (ev) {
    const link = ev.target.closest ? ev.target.closest("a.select-code") : null;
    if (!link) return;
    ev.preventDefault();
    const code = link.closest(".codebox") && link.closest(".codebox").querySelector("code");
    if (code) window.getSelection().selectAllChildren(code);
  });
}

document.addEventListener("DOMContentLoaded", function () {
  startSelectCode();
  startCountdowns();
  startCount();
  startReveal();
});
