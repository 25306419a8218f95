/**
 * The second factor's `otpauth://` URI as a QR code that authenticator apps scan: drawn on the
 * server by the `qrcode` package as SVG and served inside the page as a `data:` image, which the
 * Content-Security-Policy's `img-src 'self' data:` allows (no script, no request elsewhere).
 * Dark modules on a white quiet zone, whatever the page's theme, since scanners need contrast.
 */
import { Effect } from "effect"
import * as QRCode from "qrcode"

export const qrDataUri = (text: string) =>
  Effect.promise(() =>
    QRCode.toString(text, {
      type: "svg",
      errorCorrectionLevel: "M",
      margin: 4,
      color: { dark: "#000000", light: "#ffffff" }
    })
  ).pipe(Effect.map((svg) => `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`))
