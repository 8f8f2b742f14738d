// kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
document.addEventListener("DOMContentLoaded", () => {
  const hour = new Date().getHours();
  const open = hour >= 7 && hour < 15;
  document.body.dataset.open = String(open);
});
