/* kg serve: draws an entity's neighbourhood (cytoscape.js, served from this package) and marks the
   evidence a link points to on a source page. No network beyond this server. */
(function () {
  "use strict";

  function drawGraph() {
    var holder = document.getElementById("graph");
    var data = document.getElementById("graph-data");
    if (!holder || !data || typeof cytoscape !== "function") { return; }
    var graph = JSON.parse(data.textContent);
    var elements = [];
    graph.nodes.forEach(function (n) {
      elements.push({ data: { id: n.id, label: n.name, weight: n.weight, center: n.center ? 1 : 0 } });
    });
    graph.edges.forEach(function (e) {
      elements.push({ data: { id: e.source + "\u0001" + e.target, source: e.source, target: e.target, weight: e.weight } });
    });
    var maxWeight = Math.max.apply(null, graph.nodes.map(function (n) { return n.weight; }).concat([1]));
    var cy = cytoscape({
      container: holder,
      elements: elements,
      style: [
        { selector: "node", style: {
          "label": "data(label)", "font-size": 11, "text-wrap": "ellipsis", "text-max-width": 140,
          "background-color": "#7aa6da", "color": "#1d232b", "text-valign": "bottom", "text-margin-y": 3,
          "width": "mapData(weight, 0, " + maxWeight + ", 12, 34)", "height": "mapData(weight, 0, " + maxWeight + ", 12, 34)" } },
        { selector: "node[center = 1]", style: { "background-color": "#1f5fae", "width": 40, "height": 40, "font-weight": "bold" } },
        { selector: "edge", style: { "width": "mapData(weight, 1, " + maxWeight + ", 1, 6)", "line-color": "#c3cdd8", "curve-style": "haystack" } },
        { selector: "node:active, node:selected", style: { "overlay-opacity": 0.15 } }
      ],
      layout: { name: "cose", animate: false, randomize: false, nodeDimensionsIncludeLabels: true, padding: 20,
                idealEdgeLength: function () { return 90; }, nodeRepulsion: function () { return 9000; }, numIter: 600 }
    });
    cy.on("tap", "node", function (event) {
      var id = event.target.id();
      if (!event.target.data("center")) { window.location.href = "/entities/" + encodeURIComponent(id); }
    });
    holder.setAttribute("data-drawn", String(cy.nodes().length));
    window.kgGraph = cy;  // for a console, and for the browser tests to find a node
  }

  function markTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var marks = document.querySelectorAll("mark[data-claims]");
    var first = null;
    marks.forEach(function (m) {
      var hit = id && m.getAttribute("data-claims").split(" ").indexOf(id) >= 0;
      m.classList.toggle("current", hit);
      if (hit && !first) { first = m; }
    });
    if (first) { first.scrollIntoView({ block: "center" }); }
  }

  document.addEventListener("DOMContentLoaded", function () {
    drawGraph();
    markTarget();
  });
  window.addEventListener("hashchange", markTarget);
}());
