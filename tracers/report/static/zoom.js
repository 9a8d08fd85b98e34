// Zoom and pan for the page's timelines: wheel or +/- to zoom around the pointer, drag to pan, double-click or 0 to
// reset. Changes only the SVG's viewBox; the page reads the same without this script. No requests, no libraries.
(function () {
  "use strict";
  function units(ns) {
    if (ns >= 1e9) return (ns / 1e9).toFixed(2) + " s";
    if (ns >= 1e6) return (ns / 1e6).toFixed(1) + " ms";
    return (ns / 1e3).toFixed(0) + " µs";
  }
  function attach(timeline) {
    var svg = timeline.querySelector("svg.wt-trace-svg");
    var axis = timeline.querySelector(".wt-trace-axis");
    if (!svg || !axis) return;
    var box = svg.viewBox.baseVal, full = box.width, totalNs = Number(axis.dataset.totalNs) || 0;
    var labels = axis.querySelectorAll("span"), help = axis.querySelector(".wt-zoom-help");
    if (help) help.textContent = "wheel or +/− to zoom, drag to pan, double-click to reset";
    function show(x, width) {
      width = Math.min(full, Math.max(full / 2000, width));
      x = Math.min(full - width, Math.max(0, x));
      box.x = x; box.width = width;
      if (totalNs && labels.length >= 3) {
        labels[0].textContent = units(totalNs * x / full);
        labels[labels.length - 1].textContent = units(totalNs * (x + width) / full);
      }
    }
    function at(event) {  // the viewBox x under the pointer
      var rect = svg.getBoundingClientRect();
      return box.x + (event.clientX - rect.left) / rect.width * box.width;
    }
    function zoom(factor, centre) {
      show(centre - (centre - box.x) * factor, box.width * factor);
    }
    svg.addEventListener("wheel", function (event) {
      event.preventDefault();
      zoom(event.deltaY > 0 ? 1.25 : 0.8, at(event));
    }, {passive: false});
    var dragging = null;
    svg.addEventListener("mousedown", function (event) { dragging = {x: event.clientX, start: box.x, moved: false}; });
    window.addEventListener("mousemove", function (event) {
      if (!dragging) return;
      var moved = event.clientX - dragging.x;
      if (Math.abs(moved) > 3) dragging.moved = true;
      show(dragging.start - moved / svg.getBoundingClientRect().width * box.width, box.width);
    });
    window.addEventListener("mouseup", function () { setTimeout(function () { dragging = null; }, 0); });
    svg.addEventListener("click", function (event) { if (dragging && dragging.moved) event.preventDefault(); }, true);
    svg.addEventListener("dblclick", function (event) { event.preventDefault(); show(0, full); });
    svg.tabIndex = 0;
    svg.addEventListener("keydown", function (event) {
      var centre = box.x + box.width / 2;
      if (event.key === "+" || event.key === "=") zoom(0.8, centre);
      else if (event.key === "-") zoom(1.25, centre);
      else if (event.key === "0") show(0, full);
      else if (event.key === "ArrowLeft") show(box.x - box.width / 10, box.width);
      else if (event.key === "ArrowRight") show(box.x + box.width / 10, box.width);
      else return;
      event.preventDefault();
    });
  }
  document.querySelectorAll(".wt-trace-timeline").forEach(attach);
})();
