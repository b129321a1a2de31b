package vision

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif" // decoders for the formats a region may crop
	_ "image/jpeg"
	"image/png"
)

// maxCropPixels bounds the image a region is cut from: decoding holds
// every pixel in memory (4 bytes each), and a small file can declare a
// huge canvas.
const maxCropPixels = 100_000_000

// cropRegion cuts region [x1, y1, x2, y2], in the original image's pixels,
// out of img at full resolution and returns it as PNG (lossless, so the
// detail the caller zooms in on survives), with the note the result
// carries. A region reaching past the image is cut at its edge.
func cropRegion(img []byte, mt string, region []int) ([]byte, string, error) {
	if len(region) != 4 {
		return nil, "", fmt.Errorf("region must be four integers [x1, y1, x2, y2]; got %d", len(region))
	}
	x1, y1, x2, y2 := region[0], region[1], region[2], region[3]
	if x1 < 0 || y1 < 0 || x2 <= x1 || y2 <= y1 {
		return nil, "", fmt.Errorf("region [%d, %d, %d, %d] is not a box: it needs 0 <= x1 < x2 and 0 <= y1 < y2, in the original image's pixels", x1, y1, x2, y2)
	}
	if mt == "image/webp" {
		return nil, "", errors.New("region cannot crop WebP images here; omit region, or pass the image as PNG or JPEG")
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return nil, "", fmt.Errorf("read the image to crop it: %w", err)
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxCropPixels {
		return nil, "", fmt.Errorf("the image is %dx%d pixels, too large to crop (at most %d pixels); omit region", cfg.Width, cfg.Height, maxCropPixels)
	}
	if x1 >= cfg.Width || y1 >= cfg.Height {
		return nil, "", fmt.Errorf("region [%d, %d, %d, %d] lies outside the %dx%d image", x1, y1, x2, y2, cfg.Width, cfg.Height)
	}
	src, _, err := image.Decode(bytes.NewReader(img))
	if err != nil {
		return nil, "", fmt.Errorf("decode the image to crop it: %w", err)
	}
	b := src.Bounds()
	r := image.Rect(b.Min.X+x1, b.Min.Y+y1, b.Min.X+min(x2, cfg.Width), b.Min.Y+min(y2, cfg.Height))
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), src, r.Min, draw.Src)
	var buf bytes.Buffer
	if err := png.Encode(&buf, out); err != nil {
		return nil, "", fmt.Errorf("encode the cropped region: %w", err)
	}
	note := fmt.Sprintf("Cropped to region [%d, %d, %d, %d] of the %dx%d original (full resolution, %dx%d pixels)",
		x1, y1, x1+r.Dx(), y1+r.Dy(), cfg.Width, cfg.Height, r.Dx(), r.Dy())
	return buf.Bytes(), note, nil
}
