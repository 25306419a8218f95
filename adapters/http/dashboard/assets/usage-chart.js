// Draws a requests-per-day chart with uPlot from the numbers the page carries in `data-usage`;
// the same numbers are in the table beside it, so the page says everything without JavaScript.
// Neither uPlot nor the drawing is paid for on load: this script is deferred, and uPlot (its
// script and stylesheet, named in `data-script` and `data-style`) is fetched once most of the chart
// is on the screen, then drawn when the browser is idle, so a phone's slow CPU first paints the
// page and answers the reader. uPlot styles elements through CSSOM only, which the
// Content-Security-Policy's `style-src 'self'` allows. The y-axis is as wide as its widest label
// (uPlot's fixed default cut "12,500" to "2,500"), its text takes the page's own colour (so it
// reads in dark mode as in light), and the chart follows its container's width. Days are named
// as the reader's language names them ("Nov 3", "3 nov."), never as numbers whose order differs
// from one country to the next ("11/3"); ticks fall on whole days only.
const axisFont = "12px system-ui, sans-serif"
const tickLength = 6
const axisGap = 6
const day = 86_400
const dayIncrements = [day, 2 * day, 7 * day, 14 * day, 28 * day]
const dayText = (format, seconds) => (seconds === null ? "--" : format.format(new Date(seconds * 1000)))

/** Pixels the widest of the labels takes in the axis font, plus the tick and the gap. */
const axisWidth = (labels) => {
  const context = document.createElement("canvas").getContext("2d")
  context.font = axisFont
  const widest = Math.max(0, ...(labels ?? []).map((label) => context.measureText(String(label)).width))
  return Math.ceil(widest) + tickLength + axisGap + 4
}

const draw = (target) => {
  // Made here, not when the script loads: each costs a phone's CPU time.
  const tickDay = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" })
  const legendDay = new Intl.DateTimeFormat(undefined, {
    weekday: "short",
    month: "short",
    day: "numeric",
    timeZone: "UTC"
  })
  const days = JSON.parse(target.dataset.usage)
  const seconds = days.map((day) => Date.parse(`${day.day}T00:00:00Z`) / 1000)
  const series = (label, stroke) => ({ label, stroke, width: 2, points: { show: true } })
  const text = getComputedStyle(target).color
  const axis = {
    font: axisFont,
    stroke: text,
    gap: axisGap,
    ticks: { stroke: text, width: 1, size: tickLength },
    grid: { stroke: "rgba(127, 127, 127, 0.35)", width: 1 }
  }
  const options = {
    width: Math.max(280, target.clientWidth),
    height: 260,
    // Days are UTC days, whatever the browser's time zone.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    axes: [
      {
        ...axis,
        incrs: dayIncrements,
        values: (_u, splits) => splits.map((seconds) => dayText(tickDay, seconds))
      },
      {
        ...axis,
        values: (_u, splits) => splits.map((value) => (Number.isInteger(value) ? value.toLocaleString("en") : "")),
        size: (_u, values) => axisWidth(values)
      }
    ],
    // Colours that keep 3:1 against both Pico backgrounds, light and dark.
    series: [
      { label: "Day", value: (_u, seconds) => dayText(legendDay, seconds) },
      series("2xx/3xx", "#2e9d3a"),
      series("4xx", "#d97706"),
      series("5xx", "#e5484d")
    ]
  }
  const data = [
    seconds,
    days.map((day) => day.succeeded),
    days.map((day) => day.clientErrors),
    days.map((day) => day.serverErrors)
  ]
  const plot = new uPlot(options, data, target)
  new ResizeObserver(() => {
    const width = Math.max(280, target.clientWidth)
    if (width !== plot.width) plot.setSize({ width, height: 260 })
  }).observe(target)
}

/** Resolves once the element has loaded, rejects if it fails to. */
const loaded = (element) =>
  new Promise((resolve, reject) => {
    element.addEventListener("load", resolve, { once: true })
    element.addEventListener("error", reject, { once: true })
    document.head.append(element)
  })

const loadUplot = (target) => {
  const style = document.createElement("link")
  style.rel = "stylesheet"
  style.href = target.dataset.style
  const script = document.createElement("script")
  script.src = target.dataset.script
  return Promise.all([loaded(style), loaded(script)])
}

// Safari lacks requestIdleCallback: a task soon after is the nearest it has.
const whenIdle = (work) =>
  typeof requestIdleCallback === "function" ? requestIdleCallback(work, { timeout: 1000 }) : setTimeout(work, 0)

const target = document.getElementById("usage-chart")
if (target !== null) {
  // Should uPlot not load, the chart's place is given back and the table says it all.
  const start = () =>
    loadUplot(target).then(
      () => whenIdle(() => draw(target)),
      () => {
        target.hidden = true
      }
    )
  // Once most of it is on the screen: a phone shows the chart's top edge under the form on load,
  // and drawing it then would cost the reader's first seconds for a chart still out of sight. The
  // browser also reports the first state, below the threshold or not.
  // A browser without IntersectionObserver draws it when idle.
  const inView = 0.6
  if (typeof IntersectionObserver !== "function") whenIdle(start)
  else {
    const observer = new IntersectionObserver(
      (entries) => {
        // A ratio reported just under the threshold it crossed still counts.
        if (!entries.some((entry) => entry.isIntersecting && entry.intersectionRatio >= inView - 0.01)) return
        observer.disconnect()
        start()
      },
      { threshold: inView }
    )
    observer.observe(target)
  }
}
