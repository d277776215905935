mod support;

use std::process::Command;

use support::*;
use vidkit_media::{encode_gif, package_hls, Encoder, GifOptions, InputFormat, MediaError};

/// Every frame of `path` as packed RGB, decoded by the ffmpeg CLI.
fn decode_rgb(path: &std::path::Path) -> Vec<Vec<u8>> {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(path)
        .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .output()
        .expect("ffmpeg runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
        .chunks((WIDTH * HEIGHT * 3) as usize)
        .map(<[u8]>::to_vec)
        .collect()
}

#[test]
fn gif_has_every_frame_in_its_colour_and_the_loop_count() {
    let dir = test_dir("gif");
    let colours: [[u8; 3]; 4] = [[255, 0, 0], [0, 200, 0], [0, 0, 255], [255, 255, 255]];
    let frames: Vec<_> = colours
        .iter()
        .enumerate()
        .map(|(i, rgb)| {
            let file = dir.join(format!("frame_{i}.png"));
            std::fs::write(&file, solid_png(*rgb)).unwrap();
            file
        })
        .collect();
    let out = dir.join("out.gif");
    let stats = encode_gif(
        &frames,
        &out,
        &GifOptions {
            fps_num: 10,
            fps_den: 1,
            loop_count: 2,
        },
    )
    .unwrap();
    assert_eq!(stats.frames, 4);
    assert_eq!(stats.bytes, std::fs::metadata(&out).unwrap().len());
    let decoded = decode_rgb(&out);
    assert_eq!(decoded.len(), 4);
    for (frame, want) in decoded.iter().zip(colours) {
        let centre = ((HEIGHT / 2 * WIDTH + WIDTH / 2) * 3) as usize;
        let got = &frame[centre..centre + 3];
        assert!(
            got.iter()
                .zip(want)
                .all(|(g, w)| (i32::from(*g) - i32::from(w)).abs() <= 8),
            "{got:?} for {want:?}"
        );
    }
    let bytes = std::fs::read(&out).unwrap();
    let netscape = bytes
        .windows(11)
        .position(|w| w == b"NETSCAPE2.0")
        .expect("a loop extension");
    assert_eq!(u16::from_le_bytes([bytes[netscape + 13], bytes[netscape + 14]]), 2);
}

#[test]
fn gif_of_no_frames_or_an_unreadable_one_fails_leaving_no_file() {
    let dir = test_dir("gif-errors");
    let out = dir.join("out.gif");
    let options = GifOptions {
        fps_num: 30,
        fps_den: 1,
        loop_count: 0,
    };
    assert!(matches!(encode_gif(&[], &out, &options), Err(MediaError::Usage(_))));
    let missing = dir.join("missing.png");
    let error = encode_gif(std::slice::from_ref(&missing), &out, &options)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("missing.png") && error.contains("cannot read frame 0"),
        "{error}"
    );
    assert!(!out.exists());
}

#[test]
fn hls_cuts_on_the_keyframe_grid_into_segments_that_each_start_on_a_keyframe() {
    let dir = test_dir("hls");
    let joined = dir.join("joined.mp4");
    let mut opts = options(&joined, InputFormat::Jpeg);
    opts.keyframe_interval = Some(30);
    let mut encoder = Encoder::start(opts).unwrap();
    for i in 0..75u32 {
        encoder.push(grey_jpeg((i * 3) as u8)).unwrap();
        encoder.wait_ready().unwrap();
    }
    encoder.finish().unwrap();
    let out = dir.join("hls");
    std::fs::create_dir(&out).unwrap();
    let stats = package_hls(&joined, &out, 1).unwrap();
    assert_eq!((stats.segments, stats.frames), (3, 75));
    let mut names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "master.m3u8",
            "stream.m3u8",
            "stream_00000.ts",
            "stream_00001.ts",
            "stream_00002.ts"
        ]
    );
    for (name, count) in [
        ("stream_00000.ts", 30),
        ("stream_00001.ts", 30),
        ("stream_00002.ts", 15),
    ] {
        let frames = ffprobe(
            &out.join(name),
            &["-select_streams", "v:0", "-show_entries", "frame=key_frame"],
        );
        let frames = frames["frames"].as_array().unwrap();
        assert_eq!(frames.len(), count, "{name}");
        assert_eq!(frames[0]["key_frame"], 1, "{name} starts on a keyframe");
    }
    assert!(package_hls(&joined, &out, 0).is_err());
}
