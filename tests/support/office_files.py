"""Small real PDF, DOCX, PPTX and XLSX files made in the test: PDFs and DOCX written by hand to their specs (a
PDF's objects and cross-reference table, an encrypted one by the standard security handler; a DOCX's three XML
parts in a zip), PPTX and XLSX by python-pptx and openpyxl, the libraries MarkItDown reads them with."""

from __future__ import annotations

import hashlib
import io
import zipfile
from xml.sax.saxutils import escape

# The password padding of the PDF standard security handler (ISO 32000-1, 7.6.3.3, Algorithm 2).
_PAD = bytes.fromhex("28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a")
_PERMISSIONS = -44  # print, copy and the rest allowed; what matters here is only that a password is needed


def _rc4(key: bytes, data: bytes) -> bytes:
    box = list(range(256))
    j = 0
    for i in range(256):
        j = (j + box[i] + key[i % len(key)]) % 256
        box[i], box[j] = box[j], box[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + box[i]) % 256
        box[i], box[j] = box[j], box[i]
        out.append(byte ^ box[(box[i] + box[j]) % 256])
    return bytes(out)


def _pdf_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def pdf(lines: list[str], user_password: str | None = None) -> bytes:
    """A one-page PDF showing `lines` in Helvetica; encrypted (RC4, 40-bit, revision 2) with `user_password`."""
    stream = "BT /F1 12 Tf 72 720 Td 16 TL " + " ".join(f"({_pdf_text(line)}) Tj T*" for line in lines) + " ET"
    content = stream.encode("latin-1")
    file_id = hashlib.md5(b"vaultgraph test pdf").digest()
    encrypt = ""
    key = b""
    if user_password is not None:
        owner_key = hashlib.md5((b"owner" + _PAD)[:32]).digest()[:5]
        owner_entry = _rc4(owner_key, (user_password.encode("latin-1") + _PAD)[:32])
        key = hashlib.md5((user_password.encode("latin-1") + _PAD)[:32] + owner_entry
                          + _PERMISSIONS.to_bytes(4, "little", signed=True) + file_id).digest()[:5]
        user_entry = _rc4(key, _PAD)
        encrypt = (f"<< /Filter /Standard /V 1 /R 2 /O <{owner_entry.hex()}> /U <{user_entry.hex()}> "
                   f"/P {_PERMISSIONS} >>")
        object_key = hashlib.md5(key + (4).to_bytes(3, "little") + (0).to_bytes(2, "little")).digest()[:10]
        content = _rc4(object_key, content)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    if encrypt:
        objects.append(encrypt.encode("latin-1"))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R /ID [<{file_id.hex()}> <{file_id.hex()}>]"
    if encrypt:
        trailer += f" /Encrypt {len(objects)} 0 R"
    out += f"trailer\n{trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode("latin-1")
    return bytes(out)


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def docx(heading: str, paragraphs: list[str]) -> bytes:
    """A Word document: one `Heading 1` paragraph, then plain ones (the parts a reader needs, nothing else)."""
    def paragraph(text: str, style: str | None = None) -> str:
        props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
        return f"<w:p>{props}<w:r><w:t>{escape(text)}</w:t></w:r></w:p>"

    body = paragraph(heading, "Heading1") + "".join(paragraph(p) for p in paragraphs)
    parts = {
        "[Content_Types].xml": (
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
            'wordprocessingml.document.main+xml"/>'
            '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.'
            'wordprocessingml.styles+xml"/></Types>'),
        "_rels/.rels": (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{_REL}/officeDocument" Target="word/document.xml"/></Relationships>'),
        "word/_rels/document.xml.rels": (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{_REL}/styles" Target="styles.xml"/></Relationships>'),
        "word/styles.xml": (
            f'<w:styles xmlns:w="{_W}"><w:style w:type="paragraph" w:styleId="Heading1">'
            '<w:name w:val="heading 1"/></w:style></w:styles>'),
        "word/document.xml": f'<w:document xmlns:w="{_W}"><w:body>{body}</w:body></w:document>',
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, xml in parts.items():
            archive.writestr(name, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' + xml)
    return buffer.getvalue()


def pptx(title: str, bullets: list[str]) -> bytes:
    """A one-slide presentation: a title and a body of bullets."""
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])  # "Title and Content"
    slide.shapes.title.text = title
    body = slide.placeholders[1].text_frame
    body.text = bullets[0]
    for bullet in bullets[1:]:
        body.add_paragraph().text = bullet
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def xlsx(sheet: str, rows: list[list[str | int]]) -> bytes:
    """A workbook of one named sheet holding `rows` (the first is the header)."""
    from openpyxl import Workbook

    book = Workbook()
    active = book.active
    assert active is not None
    active.title = sheet
    for row in rows:
        active.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()
