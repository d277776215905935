//! Shared test helpers: make JPEG/PNG stills with libav's own encoders, decode MP4 output back to
//! pixels with libav, and ask the ffprobe CLI as an independent judge.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};
use std::process::Command;

use ffmpeg::codec::{self, encoder};
use ffmpeg::format::Pixel;
use ffmpeg::{frame, media, Packet};
use ffmpeg_next as ffmpeg;
use vidkit_media::{EncodeStats, Encoder, EncoderOptions, InputFormat, OutputFormat};

pub const WIDTH: u32 = 320;
pub const HEIGHT: u32 = 180;

/// A fresh directory for one test under Cargo's per-target temp dir.
pub fn test_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vidkit-media").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn options(output: &Path, input: InputFormat) -> EncoderOptions {
    EncoderOptions {
        output: output.to_path_buf(),
        format: OutputFormat::Mp4,
        width: WIDTH,
        height: HEIGHT,
        fps_num: 30,
        fps_den: 1,
        crf: 18,
        preset: "veryfast".into(),
        x264_params: None,
        threads: 0,
        input,
        queue_capacity: 4,
        keyframe_interval: None,
        first_frame: 0,
    }
}

/// A JPEG like Chromium's: yuvj420p, i.e. BT.601 full-range YCbCr (JFIF), every pixel `rgb`.
pub fn solid_jpeg(rgb: [u8; 3]) -> Vec<u8> {
    let [r, g, b] = rgb.map(f64::from);
    let y = 0.299 * r + 0.587 * g + 0.114 * b;
    let cb = 128.0 - 0.168736 * r - 0.331264 * g + 0.5 * b;
    let cr = 128.0 + 0.5 * r - 0.418688 * g - 0.081312 * b;
    let to_byte = |v: f64| v.round().clamp(0.0, 255.0) as u8;
    let mut picture = frame::Video::new(Pixel::YUVJ420P, WIDTH, HEIGHT);
    for (plane, value) in [(0, y), (1, cb), (2, cr)] {
        picture.data_mut(plane).fill(to_byte(value));
    }
    encode_still(codec::Id::MJPEG, picture)
}

pub fn grey_jpeg(level: u8) -> Vec<u8> {
    solid_jpeg([level; 3])
}

/// An RGB PNG, every pixel `rgb`.
pub fn solid_png(rgb: [u8; 3]) -> Vec<u8> {
    let mut picture = frame::Video::new(Pixel::RGB24, WIDTH, HEIGHT);
    let stride = picture.stride(0);
    let data = picture.data_mut(0);
    for row in 0..HEIGHT as usize {
        for px in data[row * stride..row * stride + WIDTH as usize * 3].chunks_exact_mut(3) {
            px.copy_from_slice(&rgb);
        }
    }
    encode_still(codec::Id::PNG, picture)
}

fn encode_still(id: codec::Id, mut picture: frame::Video) -> Vec<u8> {
    ffmpeg::init().unwrap();
    let codec = encoder::find(id).unwrap();
    let mut context = codec::Context::new_with_codec(codec).encoder().video().unwrap();
    context.set_width(WIDTH);
    context.set_height(HEIGHT);
    context.set_format(picture.format());
    context.set_time_base((1, 30));
    // Fixed quantiser 2 (the best mjpeg offers) so the test measures the encoder, not the JPEG.
    context.set_flags(codec::Flags::QSCALE);
    unsafe { (*picture.as_mut_ptr()).quality = 2 * ffmpeg::ffi::FF_QP2LAMBDA };
    let mut still = context.open().unwrap();
    still.send_frame(&picture).unwrap();
    still.send_eof().unwrap();
    let mut packet = Packet::empty();
    still.receive_packet(&mut packet).unwrap();
    packet.data().unwrap().to_vec()
}

/// One decoded yuv420p picture, planes without padding.
pub struct Yuv {
    pub y: Vec<u8>,
    pub u: Vec<u8>,
    pub v: Vec<u8>,
}

impl Yuv {
    pub fn mean_y(&self) -> f64 {
        self.y.iter().map(|&v| f64::from(v)).sum::<f64>() / self.y.len() as f64
    }

    /// The centre pixel read as BT.709 limited range, the way a player reads our tags.
    pub fn centre_rgb(&self) -> [f64; 3] {
        let (w, h) = (WIDTH as usize, HEIGHT as usize);
        let y = f64::from(self.y[(h / 2) * w + w / 2]);
        let c = (h / 4) * (w / 2) + w / 4;
        let (cb, cr) = (f64::from(self.u[c]) - 128.0, f64::from(self.v[c]) - 128.0);
        let luma = (y - 16.0) * 255.0 / 219.0;
        let chroma = 255.0 / 224.0;
        let (kr, kb) = (0.2126, 0.0722);
        let r = luma + 2.0 * (1.0 - kr) * cr * chroma;
        let b = luma + 2.0 * (1.0 - kb) * cb * chroma;
        let g = (luma - kr * r - kb * b) / (1.0 - kr - kb);
        [r, g, b]
    }
}

/// Decodes every frame of the first video stream, in display order.
pub fn decode_frames(path: &Path) -> Vec<Yuv> {
    ffmpeg::init().unwrap();
    let mut input = ffmpeg::format::input(path).unwrap();
    let stream = input.streams().best(media::Type::Video).unwrap();
    let index = stream.index();
    let mut decoder = codec::Context::from_parameters(stream.parameters())
        .unwrap()
        .decoder()
        .video()
        .unwrap();
    let mut frames = Vec::new();
    let drain = |decoder: &mut ffmpeg::decoder::Video, frames: &mut Vec<Yuv>| {
        let mut picture = frame::Video::empty();
        while decoder.receive_frame(&mut picture).is_ok() {
            assert_eq!(picture.format(), Pixel::YUV420P);
            let plane = |i: usize, w: usize, h: usize| {
                let stride = picture.stride(i);
                (0..h)
                    .flat_map(|row| picture.data(i)[row * stride..row * stride + w].to_vec())
                    .collect()
            };
            let (w, h) = (picture.width() as usize, picture.height() as usize);
            frames.push(Yuv {
                y: plane(0, w, h),
                u: plane(1, w / 2, h / 2),
                v: plane(2, w / 2, h / 2),
            });
        }
    };
    for (stream, packet) in input.packets() {
        if stream.index() == index {
            decoder.send_packet(&packet).unwrap();
            drain(&mut decoder, &mut frames);
        }
    }
    decoder.send_eof().unwrap();
    drain(&mut decoder, &mut frames);
    frames
}

/// Runs the ffprobe CLI and parses its JSON output.
pub fn ffprobe(path: &Path, args: &[&str]) -> serde_json::Value {
    let output = Command::new("ffprobe")
        .args(["-v", "error", "-of", "json"])
        .args(args)
        .arg(path)
        .output()
        .expect("the ffprobe CLI is installed");
    assert!(
        output.status.success(),
        "ffprobe failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// (frames counted by decoding, duration in seconds) according to ffprobe.
pub fn ffprobe_frames_and_duration(path: &Path) -> (u64, f64) {
    let json = ffprobe(
        path,
        &[
            "-count_frames",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=nb_read_frames:format=duration",
        ],
    );
    let frames = json["streams"][0]["nb_read_frames"].as_str().unwrap().parse().unwrap();
    let duration = json["format"]["duration"].as_str().unwrap().parse().unwrap();
    (frames, duration)
}

/// Decode timestamps of every video packet, in file order.
pub fn ffprobe_dts(path: &Path) -> Vec<i64> {
    let json = ffprobe(path, &["-select_streams", "v:0", "-show_entries", "packet=dts"]);
    json["packets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["dts"].as_i64().unwrap())
        .collect()
}

/// Decodes the whole file with the ffmpeg CLI and returns what it complained about.
pub fn ffmpeg_decode_errors(path: &Path) -> String {
    let output = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(path)
        .args(["-f", "null", "-"])
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Encodes one solid grey JPEG per level, in order.
pub fn encode_greys(output: &Path, levels: &[u8]) -> EncodeStats {
    let mut encoder = Encoder::start(options(output, InputFormat::Jpeg)).unwrap();
    for &level in levels {
        encoder.push(grey_jpeg(level)).unwrap();
        encoder.wait_ready().unwrap();
    }
    encoder.finish().unwrap()
}

/// The luma a grey level has in BT.709 limited range.
pub fn limited_luma(level: u8) -> f64 {
    16.0 + f64::from(level) * 219.0 / 255.0
}

/// Asserts that each decoded frame shows the expected grey level (±3 code values of luma).
pub fn assert_greys(frames: &[Yuv], levels: &[u8]) {
    assert_eq!(frames.len(), levels.len());
    for (i, (frame, &level)) in frames.iter().zip(levels).enumerate() {
        let (got, want) = (frame.mean_y(), limited_luma(level));
        assert!(
            (got - want).abs() <= 3.0,
            "frame {i}: mean luma {got:.1}, expected {want:.1} (grey {level})"
        );
    }
}

/// H.264 NAL unit types in the first video packet (MP4 stores 4-byte length-prefixed NALs).
pub fn first_packet_nal_types(path: &Path) -> Vec<u8> {
    ffmpeg::init().unwrap();
    let mut input = ffmpeg::format::input(path).unwrap();
    let index = input.streams().best(media::Type::Video).unwrap().index();
    let (_, packet) = input.packets().find(|(s, _)| s.index() == index).unwrap();
    let mut data = packet.data().unwrap();
    let mut types = Vec::new();
    while data.len() > 4 {
        let len = u32::from_be_bytes(data[..4].try_into().unwrap()) as usize;
        types.push(data[4] & 0x1f);
        data = &data[4 + len..];
    }
    types
}

/// Top-level MP4 box names, in file order.
pub fn mp4_boxes(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap();
    let mut boxes = Vec::new();
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let size = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        boxes.push(String::from_utf8_lossy(&bytes[at + 4..at + 8]).into_owned());
        assert!(size >= 8, "64-bit or open-ended boxes are not expected in test files");
        at += size;
    }
    boxes
}
