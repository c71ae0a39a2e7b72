"""Glossy and marker highlights as cairo writes them (python3-cairo): a dark purple radial shading
drawn with Screen through a radial luminosity mask (cairo_mask → /SMask), and a yellow marker
drawn with Multiply, over a beige panel with black bars. Usage: highlights_cairo.py OUT.pdf"""
import sys

import cairo

surface = cairo.PDFSurface(sys.argv[1], 300, 200)
c = cairo.Context(surface)
c.set_source_rgb(0.96, 0.93, 0.75)
c.rectangle(0, 0, 300, 200)
c.fill()
c.set_source_rgb(0.1, 0.1, 0.1)
for i in range(6):
    c.rectangle(20, 20 + 28 * i, 260, 10)
    c.fill()
# The gloss: dark where it is dense, so that Screen lightens only a little.
c.push_group()
gloss = cairo.RadialGradient(150, 100, 5, 150, 100, 90)
gloss.add_color_stop_rgb(0, 0.35, 0.2, 0.45)
gloss.add_color_stop_rgb(1, 0.05, 0.0, 0.1)
c.set_source(gloss)
c.rectangle(40, 10, 220, 180)
c.fill()
pattern = c.pop_group()
c.set_operator(cairo.OPERATOR_SCREEN)
c.set_source(pattern)
fade = cairo.RadialGradient(150, 100, 0, 150, 100, 100)
fade.add_color_stop_rgba(0, 0, 0, 0, 1)
fade.add_color_stop_rgba(1, 0, 0, 0, 0)
c.mask(fade)
# The marker: Multiply keeps the bars under it black.
c.set_operator(cairo.OPERATOR_MULTIPLY)
c.set_source_rgba(1, 0.9, 0.1, 0.8)
c.rectangle(15, 44, 200, 22)
c.fill()
surface.finish()
