#!/usr/bin/env python3
"""Structural facts about a PNG screenshot, for crates/rvmon-cli/tests/report.rs: decoded with
the standard library only (zlib), printed one per line as `key value`.

  size W H        the image's size
  colours N       distinct colours, each channel cut to 4 bits
  ink_top F       the share of pixels in the top half that are not white (nor near it)
  ink_bottom F    the same in the bottom half
  red N           pixels that are clearly red (the violations' shading and bars)
  band Y0 Y1      a run of rows of which at least 30 % are a plot's light grey background
                  (#fbfbfb and the grid lines over it): where a plot panel is
"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        sys.exit(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, channels)])
        prev = line
    return width, height, rows


def main():
    width, height, rows = decode(sys.argv[1])
    print(f"size {width} {height}")
    colours, red, ink = set(), 0, [0, 0]
    plot_rows = []
    for y, row in enumerate(rows):
        light = 0
        for (r, g, b) in row:
            colours.add((r >> 4, g >> 4, b >> 4))
            if min(r, g, b) < 235:
                ink[0 if y < height // 2 else 1] += 1
            if r > 150 and r - g > 60 and r - b > 60:
                red += 1
            if 225 <= min(r, g, b) and max(r, g, b) <= 252 and max(r, g, b) - min(r, g, b) <= 6:
                light += 1
        plot_rows.append(light >= 0.3 * width)
    half = width * (height // 2)
    print(f"colours {len(colours)}")
    print(f"ink_top {ink[0] / half:.4f}")
    print(f"ink_bottom {ink[1] / (width * height - half):.4f}")
    print(f"red {red}")
    start, gap = None, 0
    for y, is_plot in enumerate(plot_rows + [False] * 5):
        if is_plot:
            start, gap = (y if start is None else start), 0
        elif start is not None:
            gap += 1
            if gap > 3:
                print(f"band {start} {y - gap}")
                start, gap = None, 0


main()
