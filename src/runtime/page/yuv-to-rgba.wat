;; 8-bit planar YUV to opaque RGBA, for the page's video pictures (yuv-pixels.ts), with the
;; fixed-point arithmetic of Chromium's own converter (libyuv) so that the result is bit-exact with
;; WebCodecs' copyTo: for each pixel, with the matrix's coefficients (chroma ones in 64ths),
;;   y1 = ((y * 0x0101 * yg) >> 16) + yb
;;   B = clamp((y1 + (u - 128) * ub) >> 6)
;;   G = clamp((y1 - (u - 128) * ug - (v - 128) * vg) >> 6)
;;   R = clamp((y1 + (v - 128) * vr) >> 6)
;; Sixteen pixels a step; a 16-bit sum that saturates is above 32767 either way, so it clamps to
;; 255 as the exact sum does. Planes are tightly packed; chroma is shared by 2^shiftX pixels across
;; and 2^shiftY down. The last step of a row may run up to 15 pixels past it: the input needs 16
;; bytes after its last plane, the output 64 after the picture, and each row is written after the
;; one above, so what a step writes past a row the next row overwrites.
;; Assembled by scripts/gen-wasm.mjs into yuv-to-rgba.wasm.ts.
(module
  (memory (export "memory") 1)
  (func (export "yuvToRgba")
    (param $y i32) (param $u i32) (param $v i32) (param $out i32)
    (param $width i32) (param $height i32) (param $shiftX i32) (param $shiftY i32)
    (param $yg i32) (param $yb i32) (param $ub i32) (param $ug i32) (param $vg i32) (param $vr i32)
    (local $row i32) (local $x i32) (local $chromaWidth i32) (local $chromaRow i32)
    (local $yRow i32) (local $uRow i32) (local $vRow i32) (local $o i32)
    (local $YG v128) (local $YB v128) (local $UB v128) (local $UG v128) (local $VG v128) (local $VR v128)
    (local $luma v128) (local $cu v128) (local $cv v128)
    (local $y0 v128) (local $y1 v128) (local $u0 v128) (local $u1 v128) (local $v0 v128) (local $v1 v128)
    (local $r v128) (local $g v128) (local $b v128) (local $rg v128) (local $ba v128)
    (local.set $YG (i16x8.splat (local.get $yg)))
    (local.set $YB (i16x8.splat (local.get $yb)))
    (local.set $UB (i16x8.splat (local.get $ub)))
    (local.set $UG (i16x8.splat (local.get $ug)))
    (local.set $VG (i16x8.splat (local.get $vg)))
    (local.set $VR (i16x8.splat (local.get $vr)))
    (local.set $chromaWidth (i32.shr_u (i32.add (local.get $width) (local.get $shiftX)) (local.get $shiftX)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $row) (local.get $height)))
        (local.set $yRow (i32.add (local.get $y) (i32.mul (local.get $row) (local.get $width))))
        (local.set $chromaRow (i32.mul (i32.shr_u (local.get $row) (local.get $shiftY)) (local.get $chromaWidth)))
        (local.set $uRow (i32.add (local.get $u) (local.get $chromaRow)))
        (local.set $vRow (i32.add (local.get $v) (local.get $chromaRow)))
        (local.set $o (i32.add (local.get $out) (i32.shl (i32.mul (local.get $row) (local.get $width)) (i32.const 2))))
        (local.set $x (i32.const 0))
        (block $rowDone
          (loop $pixels
            (br_if $rowDone (i32.ge_u (local.get $x) (local.get $width)))
            (local.set $luma (v128.load (i32.add (local.get $yRow) (local.get $x))))
            (if (local.get $shiftX)
              (then
                ;; Eight chroma samples, each for two pixels.
                (local.set $cu (v128.load64_zero (i32.add (local.get $uRow) (i32.shr_u (local.get $x) (i32.const 1)))))
                (local.set $cv (v128.load64_zero (i32.add (local.get $vRow) (i32.shr_u (local.get $x) (i32.const 1)))))
                (local.set $cu (i8x16.shuffle 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 (local.get $cu) (local.get $cu)))
                (local.set $cv (i8x16.shuffle 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 (local.get $cv) (local.get $cv))))
              (else
                (local.set $cu (v128.load (i32.add (local.get $uRow) (local.get $x))))
                (local.set $cv (v128.load (i32.add (local.get $vRow) (local.get $x))))))
            ;; u - 128 and v - 128 as signed bytes, widened.
            (local.set $cu (v128.xor (local.get $cu) (v128.const i8x16 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128)))
            (local.set $cv (v128.xor (local.get $cv) (v128.const i8x16 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128 -128)))
            (local.set $u0 (i16x8.extend_low_i8x16_s (local.get $cu)))
            (local.set $u1 (i16x8.extend_high_i8x16_s (local.get $cu)))
            (local.set $v0 (i16x8.extend_low_i8x16_s (local.get $cv)))
            (local.set $v1 (i16x8.extend_high_i8x16_s (local.get $cv)))
            ;; y1 = ((y * 0x0101 * yg) >> 16) + yb, the product unsigned in 32 bits.
            (local.set $y0 (i16x8.mul (i16x8.extend_low_i8x16_u (local.get $luma)) (v128.const i16x8 257 257 257 257 257 257 257 257)))
            (local.set $y1 (i16x8.mul (i16x8.extend_high_i8x16_u (local.get $luma)) (v128.const i16x8 257 257 257 257 257 257 257 257)))
            (local.set $y0 (i16x8.add (local.get $YB) (i16x8.narrow_i32x4_s
              (i32x4.shr_u (i32x4.extmul_low_i16x8_u (local.get $y0) (local.get $YG)) (i32.const 16))
              (i32x4.shr_u (i32x4.extmul_high_i16x8_u (local.get $y0) (local.get $YG)) (i32.const 16)))))
            (local.set $y1 (i16x8.add (local.get $YB) (i16x8.narrow_i32x4_s
              (i32x4.shr_u (i32x4.extmul_low_i16x8_u (local.get $y1) (local.get $YG)) (i32.const 16))
              (i32x4.shr_u (i32x4.extmul_high_i16x8_u (local.get $y1) (local.get $YG)) (i32.const 16)))))
            ;; Each channel >> 6, clamped to 0..255 by the unsigned narrowing.
            (local.set $b (i8x16.narrow_i16x8_u
              (i16x8.shr_s (i16x8.add_sat_s (local.get $y0) (i16x8.mul (local.get $u0) (local.get $UB))) (i32.const 6))
              (i16x8.shr_s (i16x8.add_sat_s (local.get $y1) (i16x8.mul (local.get $u1) (local.get $UB))) (i32.const 6))))
            (local.set $g (i8x16.narrow_i16x8_u
              (i16x8.shr_s (i16x8.sub_sat_s (local.get $y0) (i16x8.add (i16x8.mul (local.get $u0) (local.get $UG)) (i16x8.mul (local.get $v0) (local.get $VG)))) (i32.const 6))
              (i16x8.shr_s (i16x8.sub_sat_s (local.get $y1) (i16x8.add (i16x8.mul (local.get $u1) (local.get $UG)) (i16x8.mul (local.get $v1) (local.get $VG)))) (i32.const 6))))
            (local.set $r (i8x16.narrow_i16x8_u
              (i16x8.shr_s (i16x8.add_sat_s (local.get $y0) (i16x8.mul (local.get $v0) (local.get $VR))) (i32.const 6))
              (i16x8.shr_s (i16x8.add_sat_s (local.get $y1) (i16x8.mul (local.get $v1) (local.get $VR))) (i32.const 6))))
            ;; Interleaved R G B A (A = 255), four pixels a store.
            (local.set $rg (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $r) (local.get $g)))
            (local.set $ba (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $b) (v128.const i8x16 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1)))
            (v128.store (local.get $o) (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $rg) (local.get $ba)))
            (v128.store offset=16 (local.get $o) (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $rg) (local.get $ba)))
            (local.set $rg (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $r) (local.get $g)))
            (local.set $ba (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $b) (v128.const i8x16 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1)))
            (v128.store offset=32 (local.get $o) (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $rg) (local.get $ba)))
            (v128.store offset=48 (local.get $o) (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $rg) (local.get $ba)))
            (local.set $x (i32.add (local.get $x) (i32.const 16)))
            (local.set $o (i32.add (local.get $o) (i32.const 64)))
            (br $pixels)))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $rows)))))
