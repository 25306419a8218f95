// The dashboard's script. Every page works without it; it adds: instants told relative to now in
// the reader's language ("3 hours ago") with the exact local time on hover, the phone's folding
// menu, a question before forms that ask for one (`data-confirm`), a scrolling region around any
// table the server did not put in one (`table` in Parts.ts does), and the copy button beside a
// key shown once (without it the key stays selectable in its field). Loaded in the head, not
// deferred, for its first line alone: marking the page as scripted before it is drawn lets the
// stylesheet fold a phone's menu from the first frame, rather than shift the page once loaded.
document.documentElement.classList.add("js")

document.addEventListener("DOMContentLoaded", () => {
  for (const table of document.querySelectorAll("main table")) {
    if (table.parentElement.classList.contains("table-scroll")) continue
    const region = document.createElement("div")
    region.className = "table-scroll"
    region.setAttribute("role", "region")
    region.setAttribute("aria-label", table.caption?.textContent ?? "Table")
    region.tabIndex = 0
    table.replaceWith(region)
    region.append(table)
  }

  const language = navigator.language
  const relative = new Intl.RelativeTimeFormat(language, { numeric: "auto" })
  // With its zone, since the filters and the exports speak UTC and the reader's clock may not.
  const exact = new Intl.DateTimeFormat(language, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short"
  })
  const steps = [
    ["second", 60],
    ["minute", 60],
    ["hour", 24],
    ["day", 30],
    ["month", 12],
    ["year", Number.POSITIVE_INFINITY]
  ]
  for (const time of document.querySelectorAll("time[datetime]")) {
    const at = Date.parse(time.getAttribute("datetime"))
    if (Number.isNaN(at)) continue
    let amount = (at - Date.now()) / 1000
    for (const [unit, size] of steps) {
      if (Math.abs(amount) < size) {
        time.textContent = relative.format(Math.round(amount), unit)
        break
      }
      amount /= size
    }
    time.title = exact.format(at)
  }

  const toggle = document.querySelector(".menu-toggle")
  const menu = document.getElementById("menu")
  if (toggle !== null && menu !== null) {
    toggle.addEventListener("click", () => {
      const open = menu.classList.toggle("open")
      toggle.setAttribute("aria-expanded", String(open))
    })
  }

  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault()
    })
  }

  for (const button of document.querySelectorAll("button[data-copy]")) {
    const field = document.getElementById(button.dataset.copy)
    if (field === null) continue
    button.hidden = false
    button.addEventListener("click", () => {
      navigator.clipboard.writeText(field.value).then(
        () => {
          button.textContent = "Copied"
        },
        () => {
          field.select()
        }
      )
    })
  }
})
