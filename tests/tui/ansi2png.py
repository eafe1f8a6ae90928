#!/usr/bin/python3
"""ansi2png: renders a terminal screen captured with `tmux capture-pane -p -e`
(text with SGR escapes) as a PNG, the way a dark-themed terminal shows it.

    ansi2png.py [--cols N] [--rows N] [--font-size PX] IN.ans OUT.png

Needs only Debian's python3-pil and fonts-dejavu-core (DejaVu Sans Mono).
SGR: reset, bold, dim, underline, reverse (and their resets), 8/16 colours
(30-37, 40-47, 90-97, 100-107), 256 colours (38;5;N, 48;5;N), true colour
(38;2;R;G;B), default colours (39, 49). Block, shade, box-drawing and the
viewer's triangles are drawn as shapes that fill the cell exactly, so bars
and rulers join up as they do in a terminal; everything else is text.
"""
import argparse
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
FONT = FONT_DIR + "DejaVuSansMono.ttf"
FONT_BOLD = FONT_DIR + "DejaVuSansMono-Bold.ttf"

DEFAULT_FG = (0xd0, 0xd0, 0xd0)
DEFAULT_BG = (0x16, 0x1a, 0x20)
# The 16 base colours of a dark theme (close to xterm's, a little softer).
BASE16 = [
    (0x1c, 0x1f, 0x24), (0xcd, 0x3f, 0x3f), (0x4e, 0xb0, 0x4e), (0xcd, 0xb0, 0x3c),
    (0x44, 0x7c, 0xd6), (0xb0, 0x58, 0xc8), (0x3c, 0xb0, 0xc0), (0xc8, 0xc8, 0xc8),
    (0x68, 0x6c, 0x74), (0xf0, 0x60, 0x60), (0x78, 0xd8, 0x78), (0xf0, 0xd8, 0x60),
    (0x70, 0xa0, 0xf0), (0xd8, 0x80, 0xf0), (0x68, 0xd8, 0xe8), (0xf4, 0xf4, 0xf4),
]


def xterm256(n):
    """The RGB of xterm's 256-colour palette entry n."""
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = (0, 95, 135, 175, 215, 255)
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + 10 * (n - 232)
    return (v, v, v)


def blend(a, b, t):
    """a mixed with b: t = 0 gives a, 1 gives b."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a, b))


class Attr:
    __slots__ = ("fg", "bg", "bold", "dim", "underline", "reverse")

    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None  # None: the default colour; else an RGB tuple
        self.bg = None
        self.bold = self.dim = self.underline = self.reverse = False

    def copy(self):
        c = Attr()
        for k in self.__slots__:
            setattr(c, k, getattr(self, k))
        return c


def apply_sgr(attr, params):
    """Updates attr with one SGR escape's parameters (a list of ints)."""
    if not params:
        params = [0]
    i = 0
    while i < len(params):
        p = params[i]
        if p == 0:
            attr.reset()
        elif p == 1:
            attr.bold = True
        elif p == 2:
            attr.dim = True
        elif p == 4:
            attr.underline = True
        elif p == 7:
            attr.reverse = True
        elif p == 22:
            attr.bold = attr.dim = False
        elif p == 24:
            attr.underline = False
        elif p == 27:
            attr.reverse = False
        elif 30 <= p <= 37:
            attr.fg = BASE16[p - 30]
        elif 40 <= p <= 47:
            attr.bg = BASE16[p - 40]
        elif 90 <= p <= 97:
            attr.fg = BASE16[p - 90 + 8]
        elif 100 <= p <= 107:
            attr.bg = BASE16[p - 100 + 8]
        elif p == 39:
            attr.fg = None
        elif p == 49:
            attr.bg = None
        elif p in (38, 48):
            col = None
            if i + 2 < len(params) and params[i + 1] == 5:
                col = xterm256(params[i + 2] & 255)
                i += 2
            elif i + 4 < len(params) and params[i + 1] == 2:
                col = tuple(v & 255 for v in params[i + 2:i + 5])
                i += 4
            if col is not None:
                if p == 38:
                    attr.fg = col
                else:
                    attr.bg = col
        i += 1


CSI = re.compile(r"\x1b\[([0-9;:?]*)([@-~])")
OTHER_ESC = re.compile(r"\x1b[()][0-9A-Za-z]|\x1b[=>78]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def parse(text, cols, rows):
    """The screen as rows x cols cells of (char, Attr); a wide character's
    second cell holds ''."""
    blank = Attr()
    grid = [[(" ", blank) for _ in range(cols)] for _ in range(rows)]
    attr = Attr()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for y, raw in enumerate(lines[:rows]):
        raw = OTHER_ESC.sub("", raw.rstrip("\r"))
        x = 0
        pos = 0
        while pos < len(raw):
            m = CSI.match(raw, pos)
            if m:
                if m.group(2) == "m":
                    params = [int(v) if v.isdigit() else 0
                              for v in re.split("[;:]", m.group(1))] if m.group(1) else []
                    apply_sgr(attr, params)
                pos = m.end()
                continue
            ch = raw[pos]
            pos += 1
            if ch == "\x1b" or ord(ch) < 0x20:
                continue
            if unicodedata.combining(ch):
                continue
            w = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
            if x + w > cols:
                break
            grid[y][x] = (ch, attr.copy())
            if w == 2:
                grid[y][x + 1] = ("", attr.copy())
            x += w
    return grid


def colours(a):
    fg = a.fg if a.fg is not None else DEFAULT_FG
    bg = a.bg if a.bg is not None else DEFAULT_BG
    if a.reverse:
        fg, bg = bg, fg
    if a.dim:
        fg = blend(fg, bg, 0.45)
    return fg, bg


# Box drawing: (left, right, up, down) arms of the light lines.
BOX = {
    "─": (1, 1, 0, 0), "━": (1, 1, 0, 0), "│": (0, 0, 1, 1), "┃": (0, 0, 1, 1),
    "┌": (0, 1, 0, 1), "┐": (1, 0, 0, 1), "└": (0, 1, 1, 0), "┘": (1, 0, 1, 0),
    "├": (0, 1, 1, 1), "┤": (1, 0, 1, 1), "┬": (1, 1, 0, 1), "┴": (1, 1, 1, 0),
    "┼": (1, 1, 1, 1), "╴": (1, 0, 0, 0), "╶": (0, 1, 0, 0), "╵": (0, 0, 1, 0),
    "╷": (0, 0, 0, 1),
}
SHADE = {"░": 0.25, "▒": 0.5, "▓": 0.75}


def draw_shape(d, ch, x0, y0, cw, chh, fg, bg):
    """Draws block, shade, box and triangle characters; False for others."""
    x1, y1 = x0 + cw, y0 + chh
    if ch == "█":
        d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=fg)
    elif ch in SHADE:
        d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=blend(bg, fg, SHADE[ch]))
    elif ch == "▀":
        d.rectangle([x0, y0, x1 - 1, y0 + chh // 2 - 1], fill=fg)
    elif ch == "▄":
        d.rectangle([x0, y0 + chh // 2, x1 - 1, y1 - 1], fill=fg)
    elif ch == "▌":
        d.rectangle([x0, y0, x0 + cw // 2 - 1, y1 - 1], fill=fg)
    elif ch == "▐":
        d.rectangle([x0 + cw // 2, y0, x1 - 1, y1 - 1], fill=fg)
    elif "▁" <= ch <= "▇":
        h = chh * (ord(ch) - ord("▁") + 1) // 8
        d.rectangle([x0, y1 - h, x1 - 1, y1 - 1], fill=fg)
    elif ch in BOX:
        left, right, up, down = BOX[ch]
        t = 2 if ch in "━┃" else 1
        cx, cy = x0 + cw // 2, y0 + chh // 2
        if left:
            d.rectangle([x0, cy, cx, cy + t - 1], fill=fg)
        if right:
            d.rectangle([cx, cy, x1 - 1, cy + t - 1], fill=fg)
        if up:
            d.rectangle([cx, y0, cx + t - 1, cy], fill=fg)
        if down:
            d.rectangle([cx, cy, cx + t - 1, y1 - 1], fill=fg)
    elif ch in "▲▴▼▾▶▸◀◂":
        small = ch in "▴▾▸◂"
        s = (min(cw, chh) * (0.55 if small else 0.8))
        cx, cy = x0 + cw / 2.0, y0 + chh / 2.0
        h = s / 2.0
        pts = {
            "▲": [(cx - h, cy + h), (cx + h, cy + h), (cx, cy - h)],
            "▼": [(cx - h, cy - h), (cx + h, cy - h), (cx, cy + h)],
            "▶": [(cx - h, cy - h), (cx - h, cy + h), (cx + h, cy)],
            "◀": [(cx + h, cy - h), (cx + h, cy + h), (cx - h, cy)],
        }
        base = {"▴": "▲", "▾": "▼", "▸": "▶", "◂": "◀"}.get(ch, ch)
        d.polygon(pts[base], fill=fg)
    else:
        return False
    return True


def render(grid, out, font_size):
    font = ImageFont.truetype(FONT, font_size)
    try:
        bold = ImageFont.truetype(FONT_BOLD, font_size)
    except OSError:
        bold = font
    ascent, descent = font.getmetrics()
    cw = int(round(font.getlength("M")))
    chh = ascent + descent + 2
    rows, cols = len(grid), len(grid[0]) if grid else 0
    pad = font_size
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * chh + 2 * pad), DEFAULT_BG)
    d = ImageDraw.Draw(img)
    for y, row in enumerate(grid):
        for x, (ch, a) in enumerate(row):
            if ch == "":
                continue
            fg, bg = colours(a)
            x0, y0 = pad + x * cw, pad + y * chh
            wide = x + 1 < cols and row[x + 1][0] == ""
            w = cw * (2 if wide else 1)
            if bg != DEFAULT_BG:
                d.rectangle([x0, y0, x0 + w - 1, y0 + chh - 1], fill=bg)
            if ch != " " and not draw_shape(d, ch, x0, y0, cw, chh, fg, bg):
                d.text((x0, y0 + 1), ch, font=bold if a.bold else font, fill=fg)
            if a.underline:
                d.line([x0, y0 + 1 + ascent + 1, x0 + w - 1, y0 + 1 + ascent + 1], fill=fg)
    img.save(out, "PNG", optimize=True)


def main():
    ap = argparse.ArgumentParser(description="Render an ANSI screen capture as a PNG.")
    ap.add_argument("--cols", type=int, default=0, help="screen width (default: widest line)")
    ap.add_argument("--rows", type=int, default=0, help="screen height (default: number of lines)")
    ap.add_argument("--font-size", type=int, default=15)
    ap.add_argument("input", help="capture-pane -p -e output ('-' for stdin)")
    ap.add_argument("output", help="PNG to write")
    args = ap.parse_args()
    if args.input == "-":
        text = sys.stdin.buffer.read().decode("utf-8", "replace")
    else:
        with open(args.input, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    plain = [CSI.sub("", OTHER_ESC.sub("", l)) for l in text.rstrip("\n").split("\n")]
    cols = args.cols or max((len(l) for l in plain), default=1) or 1
    rows = args.rows or len(plain) or 1
    render(parse(text, cols, rows), args.output, args.font_size)


if __name__ == "__main__":
    main()
