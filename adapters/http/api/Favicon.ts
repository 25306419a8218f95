/**
 * The service's icon at `/favicon.ico`, drawn here rather than stored as a binary file: a 16x16,
 * 32-bit ICO (1,150 bytes) of a page with three lines of text, in the reference page's blue.
 * Browsers ask for it on every page of the origin, and a 404 would be logged and audited each time.
 */

const size = 16

// A page from (3,1) to (12,14); lines of "text" on rows 4, 7 and 10.
const isPage = (x: number, y: number) => x >= 3 && x <= 12 && y >= 1 && y <= 14
const isLine = (x: number, y: number) => (y === 4 || y === 7 || y === 10) && x >= 5 && x <= 10

const pixel = (x: number, y: number): readonly [number, number, number, number] =>
  !isPage(x, y) ? [0, 0, 0, 0] : isLine(x, y) ? [255, 255, 255, 255] : [0xd8, 0x6b, 0x25, 255] // BGRA

const build = (): Uint8Array => {
  const pixels = size * size * 4
  const mask = size * 4 // one bit a pixel, rows padded to 32 bits
  const image = 40 + pixels + mask
  const ico = Buffer.alloc(6 + 16 + image)
  ico.writeUInt16LE(1, 2) // an icon
  ico.writeUInt16LE(1, 4) // one image
  ico.writeUInt8(size, 6)
  ico.writeUInt8(size, 7)
  ico.writeUInt16LE(1, 10) // planes
  ico.writeUInt16LE(32, 12) // bits per pixel
  ico.writeUInt32LE(image, 14)
  ico.writeUInt32LE(22, 18) // where the image starts
  ico.writeUInt32LE(40, 22) // BITMAPINFOHEADER
  ico.writeInt32LE(size, 26)
  ico.writeInt32LE(size * 2, 30) // the colours and the mask, stacked
  ico.writeUInt16LE(1, 34)
  ico.writeUInt16LE(32, 36)
  ico.writeUInt32LE(pixels + mask, 42)
  // Rows bottom-up; the alpha channel says what is transparent, so the mask stays zero.
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      ico.set(pixel(x, size - 1 - y), 62 + (y * size + x) * 4)
    }
  }
  return ico
}

export const bytes: Uint8Array = build()

export const contentType = "image/x-icon"

/** Long: the icon changes with a release at most, and a stale one harms nobody. */
export const cacheControl = "public, max-age=604800"
