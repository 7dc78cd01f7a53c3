#!/usr/bin/env python3
"""Makes fonts/WenQuanYiMicroHei-subset.ttf, the CJK fallback of the charts.

The source is the proportional face (number 0) of Debian's
fonts-wqy-microhei (0.2.0-beta-3.1):

    apt-get install fonts-wqy-microhei
    pip install fonttools  # 4.69.1 made the committed file
    scripts/cjk-font-subset.py [/usr/share/fonts/truetype/wqy/wqy-microhei.ttc]

The characters kept (the sets are read from Python's codecs, so no list
is copied in here):

- Chinese: GB 2312 level 1, the 3755 most used hanzi (rows 16-55);
- Japanese: JIS X 0208 level 1 kanji, 2965 (rows 16-47), hiragana and
  katakana (U+3040-30FF);
- Korean: the 2350 Hangul syllables of KS X 1001 (rows 16-40) and the
  compatibility jamo (U+3130-318F);
- CJK symbols and punctuation (U+3000-303F), half- and full-width forms
  (U+FF00-FFEF).

Kept out: hinting (the charts rasterise unhinted), OpenType layout
tables, vertical metrics and glyph names, which nothing here reads.
Everything else (Latin, Greek, Cyrillic, symbols) is DejaVu Sans'.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
OUT = Path(__file__).resolve().parent.parent / "fonts" / "WenQuanYiMicroHei-subset.ttf"

RANGES = [
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x309F),  # hiragana
    (0x30A0, 0x30FF),  # katakana
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0xFF00, 0xFFEF),  # half- and full-width forms
]

# (codec, first row, last row) of a 94x94 EUC set: row r is lead byte 0xA0 + r.
ROWS = [
    ("gb2312", 16, 55),  # GB 2312 level 1 hanzi
    ("euc_jp", 16, 47),  # JIS X 0208 level 1 kanji
    ("euc_kr", 16, 40),  # KS X 1001 Hangul syllables
]


def characters():
    chars = set()
    for first, last in RANGES:
        chars.update(chr(c) for c in range(first, last + 1))
    for codec, first, last in ROWS:
        for lead in range(0xA0 + first, 0xA0 + last + 1):
            for trail in range(0xA1, 0xFF):
                try:
                    chars.add(bytes([lead, trail]).decode(codec))
                except UnicodeDecodeError:
                    pass  # a hole in the row
    return "".join(sorted(chars))


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else SOURCE
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt") as text:
        text.write(characters())
        text.flush()
        subprocess.run(
            [
                "pyftsubset",
                source,
                "--font-number=0",
                f"--text-file={text.name}",
                f"--output-file={OUT}",
                "--no-hinting",
                "--layout-features=",
                "--no-glyph-names",
                "--name-IDs=*",
                "--name-languages=*",
                "--drop-tables+=vhea,vmtx,GDEF,GPOS,GSUB,gasp,FFTM",
            ],
            check=True,
        )
    print(f"{OUT}: {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
