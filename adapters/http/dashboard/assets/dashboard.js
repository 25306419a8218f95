// The dashboard's script. Every page is whole as the server wrote it (its dates, its tables); the
// script adds: the reader's local time on a date when hovered, the phone's folding menu, a
// question before forms that ask for one (`data-confirm`), and the copy button beside a key shown
// once (without it the key stays selectable in its field). It does nothing to the page on load
// but mark it as scripted and show that button: the rest waits for the reader. Loaded in the head,
// not deferred, for its first line alone: marking the page as scripted before it is drawn lets the
// stylesheet fold a phone's menu from the first frame, rather than shift the page once loaded.
document.documentElement.classList.add("js")

// Made on the first hover, not on load: formatting costs a phone's slow CPU time it needs to draw.
let localTime
document.addEventListener("pointerover", (event) => {
  const time = event.target instanceof Element ? event.target.closest("time[datetime]") : null
  if (time === null || time.title !== "") return
  const at = Date.parse(time.dateTime)
  if (Number.isNaN(at)) return
  localTime ??= new Intl.DateTimeFormat(navigator.language, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short"
  })
  time.title = localTime.format(at)
})

document.addEventListener("click", (event) => {
  const toggle = event.target instanceof Element ? event.target.closest(".menu-toggle") : null
  const menu = document.getElementById("menu")
  if (toggle === null || menu === null) return
  const open = menu.classList.toggle("open")
  toggle.setAttribute("aria-expanded", String(open))
})

document.addEventListener("submit", (event) => {
  const form = event.target
  if (form instanceof HTMLFormElement && form.dataset.confirm !== undefined && !window.confirm(form.dataset.confirm)) {
    event.preventDefault()
  }
})

document.addEventListener("DOMContentLoaded", () => {
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
