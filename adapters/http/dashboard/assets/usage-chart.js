// Draws the Keys page's requests-per-day chart with uPlot (loaded before this script) from the
// numbers the page carries in `data-usage`; the same numbers are in the table beside it, so the
// page says everything without JavaScript. uPlot styles elements through CSSOM only, which the
// Content-Security-Policy's `style-src 'self'` allows.
document.addEventListener("DOMContentLoaded", () => {
  const target = document.getElementById("usage-chart")
  if (target === null || typeof uPlot === "undefined") return
  const days = JSON.parse(target.dataset.usage)
  const seconds = days.map((day) => Date.parse(`${day.day}T00:00:00Z`) / 1000)
  const series = (label, stroke) => ({ label, stroke, width: 2, points: { show: true } })
  const options = {
    width: Math.max(320, target.clientWidth),
    height: 260,
    // Days are UTC days, whatever the browser's time zone.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    scales: { x: { time: true } },
    series: [{ label: "Day" }, series("2xx/3xx", "#2e7d32"), series("4xx", "#b45309"), series("5xx", "#b91c1c")]
  }
  const data = [
    seconds,
    days.map((day) => day.succeeded),
    days.map((day) => day.clientErrors),
    days.map((day) => day.serverErrors)
  ]
  new uPlot(options, data, target)
})
