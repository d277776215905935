// The glyph check's two probe faces (glyph-check.ts): TrueType fonts built here, whose one glyph
// answers for every code point, of advance 1 em in one and 2 em in the other.

// A TrueType font whose cmap (format 13) maps every code point to glyph 1.
export function probeFont(familyName: string, advance: number): FontFace {
  const tables: Record<string, DataView> = {};
  const be = function (size: number) { return new DataView(new ArrayBuffer(size)); };
  const head = be(54);
  head.setUint32(0, 0x00010000); head.setUint32(4, 0x00010000); head.setUint32(12, 0x5f0f3cf5);
  head.setUint16(16, 0x000b); head.setUint16(18, 1000);
  head.setInt16(36, 0); head.setInt16(38, -200); head.setInt16(40, advance); head.setInt16(42, 800);
  head.setUint16(46, 8); head.setInt16(48, 2); head.setInt16(50, 0); head.setInt16(52, 0);
  tables.head = head;
  const hhea = be(36);
  hhea.setUint32(0, 0x00010000); hhea.setInt16(4, 800); hhea.setInt16(6, -200); hhea.setUint16(10, advance);
  hhea.setInt16(16, advance); hhea.setInt16(18, 1); hhea.setUint16(34, 2);
  tables.hhea = hhea;
  const maxp = be(32);
  maxp.setUint32(0, 0x00010000); maxp.setUint16(4, 2); maxp.setUint16(6, 4); maxp.setUint16(8, 1); maxp.setUint16(14, 2);
  tables.maxp = maxp;
  const hmtx = be(8);
  hmtx.setUint16(0, advance); hmtx.setUint16(4, advance);
  tables.hmtx = hmtx;
  // Glyph 0 (.notdef) empty, glyph 1 a box: one contour of four on-curve points.
  const glyph = be(34);
  glyph.setInt16(0, 1); glyph.setInt16(2, 0); glyph.setInt16(4, -200); glyph.setInt16(6, advance); glyph.setInt16(8, 800);
  glyph.setUint16(10, 3); glyph.setUint16(12, 0);
  for (let f = 0; f < 4; f++) glyph.setUint8(14 + f, 0x01);
  [0, advance, 0, -advance].forEach(function (dx, i) { glyph.setInt16(18 + i * 2, dx); });
  [-200, 0, 1000, 0].forEach(function (dy, i) { glyph.setInt16(26 + i * 2, dy); });
  tables.glyf = glyph;
  const loca = be(6);
  loca.setUint16(0, 0); loca.setUint16(2, 0); loca.setUint16(4, 17);
  tables.loca = loca;
  const cmap = be(12 + 28);
  cmap.setUint16(0, 0); cmap.setUint16(2, 1); cmap.setUint16(4, 3); cmap.setUint16(6, 10); cmap.setUint32(8, 12);
  cmap.setUint16(12, 13); cmap.setUint32(16, 28); cmap.setUint32(24, 1);
  cmap.setUint32(28, 0); cmap.setUint32(32, 0x10ffff); cmap.setUint32(36, 1);
  tables.cmap = cmap;
  // GDEF: glyph 1 is a base glyph (a glyph class definition, format 1), so shaping keeps its
  // advance on combining marks too.
  const gdef = be(20);
  gdef.setUint32(0, 0x00010000); gdef.setUint16(4, 12);
  gdef.setUint16(12, 1); gdef.setUint16(14, 1); gdef.setUint16(16, 1); gdef.setUint16(18, 1);
  tables.GDEF = gdef;
  const names = [1, 2, 4, 6];
  const strings = [familyName, 'Regular', familyName, familyName];
  const stringBytes = strings.reduce(function (n, s) { return n + s.length * 2; }, 0);
  const name = be(6 + names.length * 12 + stringBytes);
  name.setUint16(2, names.length); name.setUint16(4, 6 + names.length * 12);
  let at = 0;
  names.forEach(function (id, i) {
    const rec = 6 + i * 12;
    name.setUint16(rec, 3); name.setUint16(rec + 2, 1); name.setUint16(rec + 4, 0x409); name.setUint16(rec + 6, id);
    name.setUint16(rec + 8, strings[i].length * 2); name.setUint16(rec + 10, at);
    for (let c = 0; c < strings[i].length; c++) name.setUint16(6 + names.length * 12 + at + c * 2, strings[i].charCodeAt(c));
    at += strings[i].length * 2;
  });
  tables.name = name;
  const os2 = be(96);
  os2.setUint16(0, 4); os2.setInt16(2, advance); os2.setUint16(4, 400); os2.setUint16(6, 5);
  os2.setUint16(62, 0x40); os2.setUint16(64, 0); os2.setUint16(66, 0xffff);
  os2.setInt16(68, 800); os2.setInt16(70, -200); os2.setUint16(74, 800); os2.setUint16(76, 200);
  os2.setUint16(94, 0);
  tables['OS/2'] = os2;
  const post = be(32);
  post.setUint32(0, 0x00030000);
  tables.post = post;

  const tags = Object.keys(tables).sort();
  let offset = 12 + tags.length * 16;
  let size = offset;
  tags.forEach(function (tag) { size += (tables[tag].byteLength + 3) & ~3; });
  const out = be(size);
  const log2 = Math.floor(Math.log2(tags.length));
  out.setUint32(0, 0x00010000); out.setUint16(4, tags.length);
  out.setUint16(6, 16 << log2); out.setUint16(8, log2); out.setUint16(10, tags.length * 16 - (16 << log2));
  tags.forEach(function (tag, i) {
    const table = tables[tag];
    let sum = 0;
    for (let b = 0; b < table.byteLength; b++) {
      out.setUint8(offset + b, table.getUint8(b));
      sum = (sum + (table.getUint8(b) << (24 - 8 * (b % 4)))) >>> 0;
    }
    const rec = 12 + i * 16;
    for (let t = 0; t < 4; t++) out.setUint8(rec + t, tag.charCodeAt(t) || 32);
    out.setUint32(rec + 4, sum); out.setUint32(rec + 8, offset); out.setUint32(rec + 12, table.byteLength);
    offset += (table.byteLength + 3) & ~3;
  });
  return new FontFace(familyName, out.buffer);
}
