#!/usr/bin/env python3
"""Renders a terminal capture with SGR colours (tmux capture-pane -e) to a PNG.

Usage: render_ansi.py INPUT.ansi OUTPUT.png COLUMNS ROWS
Needs Pillow and DejaVu Sans Mono (Debian: fonts-dejavu-core).
"""
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
FG, BG = (0xC0, 0xCA, 0xF5), (0x1A, 0x1B, 0x26)
BASIC = [(0x15, 0x16, 0x1E), (0xF7, 0x76, 0x8E), (0x9E, 0xCE, 0x6A), (0xE0, 0xAF, 0x68),
         (0x7A, 0xA2, 0xF7), (0xBB, 0x9A, 0xF7), (0x7D, 0xCF, 0xFF), (0xA9, 0xB1, 0xD6)]
BRIGHT = [(0x41, 0x48, 0x68)] + BASIC[1:7] + [(0xC0, 0xCA, 0xF5)]


def xterm256(n):
    if n < 8:
        return BASIC[n]
    if n < 16:
        return BRIGHT[n - 8]
    if n < 232:
        n -= 16
        lv = [0, 95, 135, 175, 215, 255]
        return (lv[n // 36], lv[(n // 6) % 6], lv[n % 6])
    g = 8 + 10 * (n - 232)
    return (g, g, g)


def parse(text, cols, rows):
    grid = [[(" ", None, None, False, False, False) for _ in range(cols)] for _ in range(rows)]
    for y, line in enumerate(text.split("\n")[:rows]):
        fg = bg = None
        bold = rev = dim = False
        x = 0
        for tok in re.split(r"(\x1b\[[0-9;]*m)", line):
            if tok.startswith("\x1b["):
                params = [int(p) if p else 0 for p in tok[2:-1].split(";")] or [0]
                i = 0
                while i < len(params):
                    p = params[i]
                    if p == 0:
                        fg = bg = None
                        bold = rev = dim = False
                    elif p == 1:
                        bold = True
                    elif p == 2:
                        dim = True
                    elif p == 7:
                        rev = True
                    elif p == 22:
                        bold = dim = False
                    elif p == 27:
                        rev = False
                    elif 30 <= p <= 37:
                        fg = BASIC[p - 30]
                    elif 90 <= p <= 97:
                        fg = BRIGHT[p - 90]
                    elif 40 <= p <= 47:
                        bg = BASIC[p - 40]
                    elif 100 <= p <= 107:
                        bg = BRIGHT[p - 100]
                    elif p == 39:
                        fg = None
                    elif p == 49:
                        bg = None
                    elif p in (38, 48) and i + 1 < len(params):
                        if params[i + 1] == 2 and i + 4 < len(params):
                            c = tuple(params[i + 2:i + 5])
                            i += 4
                        elif params[i + 1] == 5 and i + 2 < len(params):
                            c = xterm256(params[i + 2])
                            i += 2
                        else:
                            c = None
                        if p == 38:
                            fg = c
                        else:
                            bg = c
                    i += 1
                continue
            for ch in tok:
                if x >= cols:
                    break
                grid[y][x] = (ch, fg, bg, bold, rev, dim)
                x += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return grid


def main():
    src, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    grid = parse(open(src, encoding="utf-8", errors="replace").read(), cols, rows)
    size = 16
    font, bold = ImageFont.truetype(FONT, size), ImageFont.truetype(BOLD, size)
    cw = round(font.getlength("M"))
    ch = size + 5
    pad = 10
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * ch + 2 * pad), BG)
    d = ImageDraw.Draw(img)
    for y, row in enumerate(grid):
        for x, (c, fg, bg, b, rev, dim) in enumerate(row):
            f, g = fg or FG, bg or BG
            if rev:
                f, g = g, f
            if dim:
                f = tuple((a + bb) // 2 for a, bb in zip(f, BG))
            px, py = pad + x * cw, pad + y * ch
            if g != BG:
                d.rectangle([px, py, px + cw - 1, py + ch - 1], fill=g)
            if c != " ":
                if c in "─━│┃╭╮╰╯┏┓┗┛█▁▂▃▄▅▆▇▏▎▍▌▋▊▉":
                    draw_block(d, c, px, py, cw, ch, f)
                else:
                    d.text((px, py + 2), c, font=bold if b else font, fill=f)
    img.save(out)


def draw_block(d, c, x, y, w, h, col):
    """Box drawing and block characters drawn as shapes so they join up."""
    mx, my = x + w // 2, y + h // 2
    thick = c in "━┃┏┓┗┛"
    lw = 2 if thick else 1
    if c in "─━":
        d.rectangle([x, my, x + w - 1, my + lw - 1], fill=col)
    elif c in "│┃":
        d.rectangle([mx, y, mx + lw - 1, y + h - 1], fill=col)
    elif c in "╭┏":
        d.rectangle([mx, my, x + w - 1, my + lw - 1], fill=col)
        d.rectangle([mx, my, mx + lw - 1, y + h - 1], fill=col)
    elif c in "╮┓":
        d.rectangle([x, my, mx + lw - 1, my + lw - 1], fill=col)
        d.rectangle([mx, my, mx + lw - 1, y + h - 1], fill=col)
    elif c in "╰┗":
        d.rectangle([mx, y, mx + lw - 1, my + lw - 1], fill=col)
        d.rectangle([mx, my, x + w - 1, my + lw - 1], fill=col)
    elif c in "╯┛":
        d.rectangle([mx, y, mx + lw - 1, my + lw - 1], fill=col)
        d.rectangle([x, my, mx + lw - 1, my + lw - 1], fill=col)
    elif c in "▁▂▃▄▅▆▇█":
        level = "▁▂▃▄▅▆▇█".index(c) + 1
        top = y + h - (h * level) // 8
        d.rectangle([x, top, x + w - 1, y + h - 1], fill=col)
    else:
        level = "▏▎▍▌▋▊▉".index(c) + 1
        d.rectangle([x, y + 2, x + (w * level) // 8 - 1, y + h - 3], fill=col)


if __name__ == "__main__":
    main()
