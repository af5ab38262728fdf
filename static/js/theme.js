// Applies the saved theme before the page paints, and wires the theme toggle button once the page has loaded.
(function () {
  var KEY = "arena.theme";
  var root = document.documentElement;
  var saved = null;
  try { saved = localStorage.getItem(KEY); } catch (e) { saved = null; }
  var preferLight = window.matchMedia && window.matchMedia("(prefers-color-scheme: light)").matches;
  root.dataset.theme = saved || (preferLight ? "light" : "dark");
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    button.addEventListener("click", function () {
      root.dataset.theme = root.dataset.theme === "light" ? "dark" : "light";
      try { localStorage.setItem(KEY, root.dataset.theme); } catch (e) { /* private mode: keep it for this page */ }
      document.dispatchEvent(new CustomEvent("themechange"));
    });
  });
})();
