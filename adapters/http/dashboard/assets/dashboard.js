// The dashboard's only script: a copy button beside a key shown once. Without it the key stays
// selectable in its field, so every page works without JavaScript.
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
