mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;

use support::*;
use vidkit_media::{ErrorCode, MediaError, PictureStore, VideoReader};

fn ffmpeg(args: &[&str]) {
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "ffmpeg {args:?}");
}

/// A 160x32 pattern whose frame n shows n in binary: 8 blocks of 20 px, block b white when bit
/// b of n is set. `rate` is ffmpeg's frame rate (e.g. "30000/1001"); `codec` its encoder options.
fn pattern(dir: &Path, name: &str, rate: &str, seconds: f64, codec: &[&str]) -> PathBuf {
    let blocks: Vec<String> = (0..8)
        .map(|b| {
            format!(
                "drawbox=x={}:y=0:w=20:h=32:color=white:t=fill:enable='eq(mod(trunc(n/{}),2),1)'",
                b * 20,
                1 << b
            )
        })
        .collect();
    let file = dir.join(name);
    let source = format!("color=c=black:s=160x32:r={rate}:d={seconds}");
    let filter = format!("format=yuv420p,{}", blocks.join(","));
    let mut args = vec!["-f", "lavfi", "-i", &source, "-vf", &filter];
    args.extend_from_slice(codec);
    args.push(file.to_str().unwrap());
    ffmpeg(&args);
    file
}

const H264: &[&str] = &["-c:v", "libx264", "-preset", "ultrafast", "-g", "30"];
/// A keyframe every 50 frames: requests between them decode through or seek.
const H264_GOP_50: &[&str] = &["-c:v", "libx264", "-preset", "ultrafast", "-g", "50"];
const VP9: &[&str] = &[
    "-c:v",
    "libvpx-vp9",
    "-deadline",
    "realtime",
    "-cpu-used",
    "8",
    "-g",
    "30",
];

/// Asks `reader` for the picture at `seconds`; whether one was written, and the file's bytes.
fn frame_at(reader: &VideoReader, seconds: f64, output: &Path) -> Result<(bool, Vec<u8>), MediaError> {
    let (file, bytes) = stored_frame_at(reader, seconds, output, None)?;
    if let Some(file) = file {
        assert_eq!(file, output, "without a store the picture is written to the output");
    }
    Ok((bytes.is_some(), std::fs::read(output).unwrap_or_default()))
}

/// Asks `reader` for the picture at `seconds` with `store`: the file answered and its bytes
/// (`None` when the picture answered last still shows).
fn stored_frame_at(
    reader: &VideoReader,
    seconds: f64,
    output: &Path,
    store: Option<&Path>,
) -> Result<(Option<PathBuf>, Option<Vec<u8>>), MediaError> {
    let (tx, rx) = mpsc::channel();
    reader.frame_at(
        seconds,
        output.to_path_buf(),
        store.map(|dir| PictureStore::open(dir).unwrap()),
        Box::new(move |result| tx.send(result).unwrap()),
    );
    let file = rx.recv().unwrap()?;
    let bytes = file.as_ref().map(|f| std::fs::read(f).unwrap());
    Ok((file, bytes))
}

/// The brightness at x, y of a written picture: its luma plane, or red of RGBA.
fn luma(reader: &VideoReader, picture: &[u8], x: usize, y: usize) -> u8 {
    let layout = reader.layout();
    let at = y * layout.coded_width as usize + x;
    if layout.format == "RGBA" {
        picture[at * 4]
    } else {
        picture[at]
    }
}

/// The number a 160-wide pattern picture shows.
fn code(reader: &VideoReader, picture: &[u8]) -> u32 {
    (0..8)
        .filter(|b| luma(reader, picture, b * 20 + 10, 16) > 128)
        .map(|b| 1 << b)
        .sum()
}

#[test]
fn every_render_frame_gets_the_source_frame_that_has_started_whatever_the_source_rate() {
    let dir = test_dir("frames-rates");
    // (ffmpeg rate, frames per second, container)
    for (rate, fps, codec, ext) in [
        ("30", 30.0, H264, "mp4"),
        ("24", 24.0, H264, "mp4"),
        ("25", 25.0, VP9, "webm"),
        ("30000/1001", 30000.0 / 1001.0, H264, "mp4"),
        ("30", 30.0, VP9, "webm"),
    ] {
        let source = pattern(&dir, &format!("{}.{ext}", rate.replace('/', "-")), rate, 3.0, codec);
        let reader = VideoReader::open(&source).unwrap().expect("a video");
        assert_eq!((reader.info().width, reader.info().height), (160, 32));
        // As decoded: the page has Chromium convert it.
        assert_eq!((reader.layout().format, reader.layout().coded_width), ("I420", 160));
        let out = dir.join("picture.rgba");
        let mut wrong = Vec::new();
        for n in 0..80 {
            let t = f64::from(n) / 30.0;
            // The last source frame k with k / fps <= t (a 29.97 fps frame k starts k/30000 s after render frame k).
            let want = ((t * fps) + 1e-6).floor() as u32;
            let (_, rgba) = frame_at(&reader, t, &out).unwrap();
            if code(&reader, &rgba) != want {
                wrong.push(format!(
                    "{rate} {ext} render frame {n}: source frame {}, want {want}",
                    code(&reader, &rgba)
                ));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
}

#[test]
fn seeks_back_and_far_ahead_hold_the_last_frame_and_skip_repeats() {
    let dir = test_dir("frames-seek");
    let source = pattern(&dir, "seek.mp4", "30", 4.0, H264_GOP_50);
    let reader = VideoReader::open(&source).unwrap().unwrap();
    let info = reader.info().clone();
    assert!((info.duration_seconds - 4.0).abs() < 0.05, "{info:?}");
    assert!((info.video_duration_seconds - 4.0).abs() < 0.05, "{info:?}");
    let out = dir.join("p.rgba");
    for (t, want) in [
        (0.0, 0),
        (3.5, 105),
        (0.5, 15),
        (0.51, 15),
        (2.0, 60),
        (1.0, 30),
        (9.0, 119),
        (3.99, 119),
    ] {
        let (_, rgba) = frame_at(&reader, t, &out).unwrap();
        assert_eq!(code(&reader, &rgba), want, "at {t} s");
    }
    // The same picture again is not written again.
    assert!(!frame_at(&reader, 9.5, &dir.join("unwritten.rgba")).unwrap().0);
    assert!(!dir.join("unwritten.rgba").exists());
    assert!(frame_at(&reader, 0.0, &out).unwrap().0);
}

#[test]
fn variable_frame_rate_sources_show_each_frame_from_its_own_timestamp() {
    let dir = test_dir("frames-vfr");
    let constant = pattern(&dir, "cfr.mp4", "30", 1.0, H264);
    // Frame n at n/30 s for n < 10, then 0.1 s apart: 10 at 0.4 s, 11 at 0.5 s...
    let vfr = dir.join("vfr.mp4");
    ffmpeg(&[
        "-i",
        constant.to_str().unwrap(),
        "-vf",
        "setpts='if(lt(N,10),N/30,0.4+(N-10)*0.1)/TB'",
        "-fps_mode",
        "vfr",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        vfr.to_str().unwrap(),
    ]);
    let reader = VideoReader::open(&vfr).unwrap().unwrap();
    let out = dir.join("p.rgba");
    for (t, want) in [
        (0.0, 0),
        (0.3, 9),
        (0.39, 9),
        (0.4, 10),
        (0.45, 10),
        (0.5, 11),
        (0.71, 13),
        (2.0, 26),
        (5.0, 29),
    ] {
        let (_, rgba) = frame_at(&reader, t, &out).unwrap();
        assert_eq!(code(&reader, &rgba), want, "at {t} s");
    }
}

#[test]
fn vp9_alpha_and_rotation_are_kept() {
    let dir = test_dir("frames-alpha");
    let alpha = dir.join("alpha.webm");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=c=red@0.5:s=64x48:r=30:d=0.5,format=yuva420p",
        "-c:v",
        "libvpx-vp9",
        "-deadline",
        "realtime",
        alpha.to_str().unwrap(),
    ]);
    let reader = VideoReader::open(&alpha).unwrap().unwrap();
    assert!(reader.info().has_alpha);
    assert_eq!(reader.layout().format, "I420A");
    let (_, planes) = frame_at(&reader, 0.2, &dir.join("a.yuv")).unwrap();
    // Y, then U and V at a quarter each, then alpha.
    assert_eq!(planes.len(), 64 * 48 * 5 / 2);
    let (y, v, a) = (
        planes[24 * 64 + 32],
        planes[64 * 48 * 5 / 4 + 12 * 32 + 16],
        planes[64 * 48 * 3 / 2 + 24 * 64 + 32],
    );
    // Red: BT.601 limited Y 81, Cr 240.
    assert!(
        (y as i32 - 81).abs() <= 3 && v > 230 && (a as i32 - 128).abs() <= 3,
        "Y {y} Cr {v} alpha {a}"
    );

    // A 64x48 picture, left half white, stored with a 90 degree display rotation: shown 48x64,
    // turned as ffmpeg's own player turns it.
    let upright = dir.join("upright.mp4");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=c=black:s=64x48:r=30:d=0.2,drawbox=x=0:y=0:w=32:h=48:color=white:t=fill",
        "-c:v",
        "libx264",
        upright.to_str().unwrap(),
    ]);
    let rotated = dir.join("rotated.mov");
    ffmpeg(&[
        "-i",
        upright.to_str().unwrap(),
        "-c",
        "copy",
        "-metadata:s:v:0",
        "rotate=90",
        rotated.to_str().unwrap(),
    ]);
    let reader = VideoReader::open(&rotated).unwrap().unwrap();
    assert_eq!((reader.info().width, reader.info().height), (48, 64));
    assert_eq!((reader.layout().coded_width, reader.layout().coded_height), (48, 64));
    let (_, planes) = frame_at(&reader, 0.0, &dir.join("r.yuv")).unwrap();
    let turned = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-i",
            rotated.to_str().unwrap(),
            "-frames:v",
            "1",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "gray",
            "-",
        ])
        .output()
        .unwrap()
        .stdout;
    assert_eq!(turned.len(), 48 * 64);
    let white = |picture: &[u8], x: usize, y: usize| picture[y * 48 + x] > 128;
    for (x, y) in [(24, 10), (24, 54)] {
        assert_eq!(white(&planes, x, y), white(&turned, x, y), "pixel {x},{y}");
    }
    assert_ne!(white(&planes, 24, 10), white(&planes, 24, 54));
}

#[test]
fn pictures_the_page_cannot_take_as_decoded_come_as_rgba() {
    let dir = test_dir("frames-rgba");
    // 10-bit: no 8-bit planes to hand over.
    let deep = pattern(
        &dir,
        "deep.mp4",
        "30",
        1.0,
        &["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le"],
    );
    let reader = VideoReader::open(&deep).unwrap().unwrap();
    assert_eq!(reader.layout().format, "RGBA");
    let out = dir.join("p.rgba");
    for n in [0, 7, 29] {
        let (_, rgba) = frame_at(&reader, f64::from(n) / 30.0, &out).unwrap();
        assert_eq!(rgba.len(), 160 * 32 * 4);
        assert_eq!(code(&reader, &rgba), n);
    }
}

#[test]
fn files_without_video_give_none_and_undecodable_ones_fail_naming_the_file() {
    let dir = test_dir("frames-errors");
    let tone = dir.join("tone.wav");
    ffmpeg(&["-f", "lavfi", "-i", "sine=d=0.2", tone.to_str().unwrap()]);
    assert!(VideoReader::open(&tone).unwrap().is_none());
    let garbage = dir.join("garbage.mp4");
    std::fs::write(&garbage, b"this is not a video").unwrap();
    let error = VideoReader::open(&garbage).err().expect("an error");
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("{}: cannot open it as a media file", garbage.display())),
        "{message}"
    );
    assert_eq!(error.code(), ErrorCode::DecodeFailed, "{message}");
}

#[test]
fn a_picture_that_cannot_be_written_fails_naming_the_output_with_the_os_reason() {
    let dir = test_dir("frames-write-error");
    let video = pattern(&dir, "v.mp4", "30", 0.2, H264);
    let reader = VideoReader::open(&video).unwrap().unwrap();
    let output = dir.join("missing").join("p.raw");
    let error = frame_at(&reader, 0.0, &output).unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("{}: cannot write a video picture: ", output.display())),
        "{message}"
    );
    assert_eq!(error.code(), ErrorCode::Io, "{message}");
    // The reader still answers once the output can be written.
    let (written, picture) = frame_at(&reader, 0.0, &dir.join("p.raw")).unwrap();
    assert!(written && !picture.is_empty());
}

#[test]
fn a_reader_with_a_store_answers_what_a_decoding_reader_answers_and_the_next_reader_decodes_nothing() {
    let dir = test_dir("frames-store");
    let source = pattern(&dir, "s.mp4", "30", 4.0, H264_GOP_50);
    let store = dir.join("store");
    // A window of frames, a repeat, a jump back and one far ahead: the requests a batch row makes.
    let times: Vec<f64> = (0..20)
        .chain([19, 5, 6, 100, 101, 102, 130])
        .map(|n| f64::from(n) / 30.0)
        .collect();
    let answers = |reader: &VideoReader, store: Option<&Path>, out: &Path| -> Vec<Option<Vec<u8>>> {
        times
            .iter()
            .map(|&t| stored_frame_at(reader, t, out, store).unwrap().1)
            .collect()
    };
    let plain = answers(
        &VideoReader::open(&source).unwrap().unwrap(),
        None,
        &dir.join("plain.yuv"),
    );
    let first = VideoReader::open(&source).unwrap().unwrap();
    assert_eq!(answers(&first, Some(&store), &dir.join("first.yuv")), plain);
    // The first reader kept its pictures in the store, not in its output.
    assert!(!dir.join("first.yuv").exists());
    let kept = std::fs::read_dir(&store).unwrap().count();
    assert!(kept >= 20, "{kept} pictures kept");
    // A second reader is answered from the store: the same bytes, and no picture written anew.
    let second = VideoReader::open(&source).unwrap().unwrap();
    let again = answers(&second, Some(&store), &dir.join("second.yuv"));
    assert_eq!(again, plain);
    assert_eq!(std::fs::read_dir(&store).unwrap().count(), kept);
    // Only the repeat is answered with nothing.
    assert_eq!(again.iter().filter(|a| a.is_none()).count(), 1);
    // Every answer comes from the store's files: marked, each answer carries the mark.
    for entry in std::fs::read_dir(&store).unwrap() {
        let mut bytes = std::fs::read(entry.as_ref().unwrap().path()).unwrap();
        bytes.extend_from_slice(b"kept");
        std::fs::write(entry.unwrap().path(), bytes).unwrap();
    }
    let third = VideoReader::open(&source).unwrap().unwrap();
    let marked = answers(&third, Some(&store), &dir.join("third.yuv"));
    assert!(marked.iter().flatten().all(|a| a.ends_with(b"kept")));
    assert_eq!(marked.iter().flatten().count(), plain.iter().flatten().count());
    // Pictures removed from under the store are decoded again, the same, and kept again.
    std::fs::remove_dir_all(&store).unwrap();
    let fourth = VideoReader::open(&source).unwrap().unwrap();
    assert_eq!(answers(&fourth, Some(&store), &dir.join("fourth.yuv")), plain);
    assert!(std::fs::read_dir(&store).unwrap().count() >= 20);
}
