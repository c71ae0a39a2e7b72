"""Corpus files written by cairo (python3-cairo): RGB vector pages at given sizes."""
import sys
import cairo

MM = 72 / 25.4
out = sys.argv[1]


def pages(name, sizes_mm):
    surface = cairo.PDFSurface(f"{out}/{name}", sizes_mm[0][0] * MM, sizes_mm[0][1] * MM)
    for i, (w, h) in enumerate(sizes_mm):
        surface.set_size(w * MM, h * MM)
        ctx = cairo.Context(surface)
        ctx.set_source_rgb(0.1 + 0.3 * i, 0.4, 0.8)
        ctx.rectangle(0, 0, w * MM, h * MM)
        ctx.fill()
        ctx.set_source_rgb(1, 0.9, 0.2)
        ctx.arc(w * MM / 2, h * MM / 2, min(w, h) * MM / 4, 0, 6.2832)
        ctx.fill()
        ctx.set_source_rgb(0, 0, 0)
        ctx.set_line_width(10)
        ctx.move_to(0, 0)
        ctx.line_to(w * MM, h * MM)
        ctx.stroke()
        surface.show_page()
    surface.finish()


# curtains 140x260: pages 1440 x 2640 mm, tolerance 2 mm
pages("cairo-curtains-within-tolerance.pdf", [(1441.5, 2638.5), (1438.5, 2641.9)])
pages("cairo-curtains-beyond-tolerance.pdf", [(1462.0, 2640.0), (1440.0, 2600.0)])
