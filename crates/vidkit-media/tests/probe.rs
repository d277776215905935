mod support;

use std::process::Command;

use support::*;
use vidkit_media::{probe, ErrorCode, MediaError};

#[test]
fn describes_an_encoded_segment() {
    let out = test_dir("probe-mp4").join("segment.mp4");
    encode_greys(&out, &[1, 2, 3, 4, 5, 6]);
    let probed = probe(&out).unwrap();
    assert_eq!(probed.format_name, "mov,mp4,m4a,3gp,3g2,mj2");
    assert!((probed.duration_seconds - 0.2).abs() < 1e-6);
    assert_eq!(probed.streams.len(), 1);
    let video = &probed.streams[0];
    assert_eq!(video.index, 0);
    assert_eq!(video.kind, "video");
    assert_eq!(video.codec, "h264");
    assert_eq!(video.profile, "High");
    assert_eq!((video.width, video.height), (WIDTH, HEIGHT));
    assert_eq!(video.pix_fmt, "yuv420p");
    assert_eq!(video.frame_count, 6);
    assert!((video.fps - 30.0).abs() < 1e-9);
}

#[test]
fn counts_frames_by_demuxing_when_the_container_does_not_record_them() {
    let dir = test_dir("probe-ts");
    let mp4 = dir.join("segment.mp4");
    encode_greys(&mp4, &[10, 20, 30, 40, 50, 60, 70]);
    let ts = dir.join("segment.ts");
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-i"])
        .arg(&mp4)
        .args(["-c", "copy"])
        .arg(&ts)
        .status()
        .unwrap();
    assert!(status.success());

    let probed = probe(&ts).unwrap();
    assert_eq!(probed.format_name, "mpegts");
    let video = probed.streams.iter().find(|s| s.kind == "video").unwrap();
    assert_eq!(video.frame_count, 7);
    assert_eq!(video.codec, "h264");
}

#[test]
fn reports_audio_streams_and_unspecified_colour_as_empty() {
    let path = test_dir("probe-audio").join("tone.m4a");
    let status = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:duration=0.5",
            "-c:a",
            "aac",
        ])
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    let probed = probe(&path).unwrap();
    let audio = &probed.streams[0];
    assert_eq!(
        (audio.kind.as_str(), audio.codec.as_str(), audio.profile.as_str()),
        ("audio", "aac", "LC")
    );
    assert_eq!(
        (
            audio.width,
            audio.height,
            audio.pix_fmt.as_str(),
            audio.color_space.as_str()
        ),
        (0, 0, "", "")
    );
    assert!(audio.frame_count > 0);
    assert!(
        (audio.duration_seconds - 0.5).abs() < 0.05,
        "{}",
        audio.duration_seconds
    );
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let path = test_dir("probe-missing").join("nope.mp4");
    let error = probe(&path).unwrap_err();
    assert!(matches!(error, MediaError::Io { .. }));
    assert_eq!(error.code(), ErrorCode::Io);
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}: cannot open it as a media file", path.display())),
        "{error}"
    );
}

#[test]
fn a_file_that_is_no_media_is_a_decode_failure() {
    let path = test_dir("probe-garbage").join("noise.mp4");
    std::fs::write(
        &path,
        (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let error = probe(&path).unwrap_err();
    assert_eq!(error.code(), ErrorCode::DecodeFailed, "{error}");
    assert_eq!(error.code().as_str(), "VIDKIT_DECODE_FAILED");
}
