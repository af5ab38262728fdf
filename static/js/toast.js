// A short message at the bottom of the screen (announced to screen readers through its aria-live region).

let timer = 0;

/** Shows `message` for a few seconds; `isError` marks it as a problem. */
export function showToast(message, isError = false) {
  const toast = document.getElementById("toast");
  if (!toast) return;
  toast.textContent = message;
  toast.classList.toggle("error", isError);
  toast.classList.add("show");
  window.clearTimeout(timer);
  timer = window.setTimeout(() => toast.classList.remove("show"), isError ? 5000 : 3000);
}
