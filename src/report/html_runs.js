// The transcripts of the agent-eval HTML report: lists each scenario's
// runs with a filter (cell, outcome, seed) and builds a run's transcript
// only when it is opened. Text is only ever set with textContent, never
// parsed as HTML. The data format is described in src/report/html_runs.rs.
(function () {
  "use strict";
  var node = document.getElementById("ae-runs");
  if (!node) { return; }
  var data = JSON.parse(node.textContent);
  var S = data.strings;
  var PAGE = 50;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function isReminder(t) {
    return t.indexOf("<reminder>") >= 0 || t.indexOf("<system-reminder>") >= 0 || t.indexOf("REMINDERS") >= 0;
  }
  function done(run) { return run[3] >= run[4]; }
  function thousands(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }

  function planPanel(items) {
    var box = el("div", "plan");
    box.appendChild(el("div", "who", "plan"));
    var ul = el("ul");
    if (items.length === 0) { ul.appendChild(el("li", "empty", "(empty)")); }
    items.forEach(function (it) {
      var li = el("li", S[it[0]]);
      li.appendChild(el("span", "status", S[it[0]]));
      li.appendChild(document.createTextNode(" #" + S[it[1]] + " " + S[it[2]]));
      ul.appendChild(li);
    });
    box.appendChild(ul);
    return box;
  }

  function block(b) {
    if (b[0] === 0) {
      var t = S[b[1]];
      var r = isReminder(t);
      return el("div", r ? "reminder" : "text", (r ? "\u2691 " : "") + t);
    }
    if (b[0] === 1) {
      var input = S[b[2]];
      var inputLines = input.split("\n").length;
      if (inputLines > 12) {
        var folded = el("details", "call");
        folded.appendChild(el("summary", "", "\u2192 " + S[b[1]] + " (input, " + inputLines + " lines)"));
        folded.appendChild(el("pre", "input", input));
        return folded;
      }
      var call = el("div", "call");
      call.appendChild(el("span", "arrow", "\u2192 "));
      call.appendChild(el("b", "", S[b[1]]));
      call.appendChild(el("pre", "input", input));
      return call;
    }
    if (b[0] === 2) {
      var c = S[b[1]];
      var lines = c.split("\n").length;
      var cls = "result" + (isReminder(c) ? " reminder" : "");
      var head = "\u2190 " + S[b[2]];
      if (c.length > 400 || lines > 8) {
        var d = el("details", cls);
        d.appendChild(el("summary", "", head + ": " + c.split("\n")[0] + " \u2026 (" + lines + " lines)"));
        d.appendChild(el("pre", "", c));
        return d;
      }
      var div = el("div", cls);
      div.appendChild(el("span", "tool", head));
      div.appendChild(el("pre", "", c));
      return div;
    }
    return el("div", "other", "[" + S[b[1]] + "]");
  }

  function transcript(run) {
    var box = el("div", "transcript");
    if (S[run[7]]) {
      var p = el("p", "replay");
      p.appendChild(el("code", "", S[run[7]]));
      box.appendChild(p);
    }
    var ol = el("ol", "conversation");
    var turn = 0, typed = 0;
    run[8].forEach(function (m, at) {
      var role = m[0] === 1 ? "assistant" : "user";
      var li;
      if (typeof m[1] === "number") {
        typed += 1;
        var who = turn === 0 ? "task" : (typed === 1 ? role : "user message " + typed + " \u00b7 after turn " + turn);
        li = el("li", "msg " + role + (typed > 1 ? " part-start" : ""));
        li.appendChild(el("div", "who", who));
        li.appendChild(el("pre", "", S[m[1]]));
      } else {
        if (role === "assistant") { turn += 1; }
        li = el("li", "msg " + role);
        li.appendChild(el("div", "who", role + " \u00b7 turn " + turn));
        m[1].forEach(function (b) { li.appendChild(block(b)); });
      }
      run[9].forEach(function (plan) {
        if (plan[2] === at) { li.appendChild(planPanel(plan[1])); }
      });
      ol.appendChild(li);
    });
    box.appendChild(ol);
    return box;
  }

  function runItem(run) {
    var li = el("li");
    var d = el("details", "run " + (done(run) ? "ok" : "dropped"));
    d.appendChild(el("summary", "", "seed " + run[2] + " \u00b7 " + S[run[1]] + " \u00b7 steps " +
      run[3] + "/" + run[4] + " \u00b7 stop " + S[run[5]] + " \u00b7 reminders at " + JSON.stringify(run[6])));
    d.addEventListener("toggle", function () {
      if (d.open && d.childNodes.length === 1) { d.appendChild(transcript(run)); }
    });
    li.appendChild(d);
    return li;
  }

  function setUp(section) {
    var scenario = Number(section.getAttribute("data-scenario"));
    var runs = data.runs.filter(function (r) { return r[0] === scenario; });
    var cells = [];
    runs.forEach(function (r) { if (cells.indexOf(r[1]) < 0) { cells.push(r[1]); } });
    var form = section.querySelector("form");
    var cellPick = form.querySelector("select[name=cell]");
    cells.forEach(function (c) {
      var o = el("option", "", S[c]);
      o.value = String(c);
      cellPick.appendChild(o);
    });
    var outcomePick = form.querySelector("select[name=outcome]");
    var seedPick = form.querySelector("input[name=seed]");
    var count = section.querySelector(".count");
    var list = section.querySelector("ol.runs");
    var more = section.querySelector("button.more");
    var shown = PAGE;
    function matching() {
      var cell = cellPick.value, outcome = outcomePick.value, seed = seedPick.value.trim();
      return runs.filter(function (r) {
        return (cell === "" || String(r[1]) === cell) &&
          (outcome === "" || (outcome === "dropped") !== done(r)) &&
          (seed === "" || String(r[2]) === seed);
      });
    }
    function draw() {
      var found = matching();
      while (list.firstChild) { list.removeChild(list.firstChild); }
      found.slice(0, shown).forEach(function (r) { list.appendChild(runItem(r)); });
      count.textContent = thousands(found.length) + " of " + thousands(runs.length) + " runs match" +
        (found.length > shown ? "; showing the first " + shown : "");
      more.hidden = found.length <= shown;
    }
    function again() { shown = PAGE; draw(); }
    cellPick.addEventListener("change", again);
    outcomePick.addEventListener("change", again);
    seedPick.addEventListener("input", again);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    more.addEventListener("click", function () { shown += PAGE; draw(); });
    section.hidden = false;
    draw();
  }

  var sections = document.querySelectorAll("div.runs[data-scenario]");
  for (var i = 0; i < sections.length; i++) { setUp(sections[i]); }
})();
