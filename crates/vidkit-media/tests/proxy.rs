mod support;

use std::process::Command;

use support::*;
use vidkit_media::intra_proxy;

fn ffmpeg(args: &[&str]) {
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "ffmpeg {args:?}");
}

#[test]
fn a_proxy_has_every_frame_a_keyframe_with_the_source_timestamps() {
    let dir = test_dir("proxy");
    let source = dir.join("source.webm");
    // 45 frames at 30 fps with a keyframe every 30.
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=160x90:r=30:d=1.5",
        "-c:v",
        "libvpx-vp9",
        "-deadline",
        "realtime",
        "-cpu-used",
        "8",
        "-g",
        "30",
        source.to_str().unwrap(),
    ]);
    let proxy = dir.join("proxy.mp4");
    let stats = intra_proxy(&source, &proxy)
        .unwrap()
        .expect("a video without alpha gets a proxy");
    assert_eq!(stats.frames, 45);

    let frames = ffprobe(
        &proxy,
        &["-select_streams", "v:0", "-show_entries", "frame=pict_type,pts_time"],
    );
    let frames = frames["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 45);
    assert!(frames.iter().all(|f| f["pict_type"] == "I"), "every frame intra");
    let source_frames = ffprobe(&source, &["-select_streams", "v:0", "-show_entries", "frame=pts_time"]);
    let times = |list: &serde_json::Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|f| f["pts_time"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        times(&serde_json::Value::Array(frames.clone())),
        times(&source_frames["frames"])
    );
    let (_, duration) = ffprobe_frames_and_duration(&proxy);
    assert!((duration - 1.5).abs() < 1e-3, "proxy lasts {duration}");
}

#[test]
fn no_proxy_for_alpha_video_or_audio_only_files() {
    let dir = test_dir("proxy-none");
    let alpha = dir.join("alpha.webm");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=c=red@0.5:s=64x64:r=30:d=0.2,format=yuva420p",
        "-c:v",
        "libvpx-vp9",
        "-deadline",
        "realtime",
        alpha.to_str().unwrap(),
    ]);
    let tone = dir.join("tone.wav");
    ffmpeg(&["-f", "lavfi", "-i", "sine=d=0.2", tone.to_str().unwrap()]);
    for input in [alpha, tone] {
        let out = dir.join("proxy.mp4");
        assert_eq!(intra_proxy(&input, &out).unwrap(), None, "{}", input.display());
        assert!(!out.exists());
    }
}

/// The proxy declares its source's colour in full, by the one rule (colour::source): the tagged
/// matrix, else the matrix a browser guesses from the height; the range as the pixels now hold it;
/// BT.709 primaries and the sRGB transfer for any SDR source.
#[test]
fn a_proxy_declares_the_colour_its_source_is_read_with() {
    let dir = test_dir("proxy-colour");
    let cases: [(&str, &str, &[&str], [&str; 4]); 4] = [
        (
            "matrix-only-360.mp4",
            "160x90",
            &["-colorspace", "bt709"],
            ["bt709", "bt709", "iec61966-2-1", "tv"],
        ),
        (
            "untagged-360.mp4",
            "160x90",
            &[],
            ["smpte170m", "bt709", "iec61966-2-1", "tv"],
        ),
        (
            "untagged-720.mp4",
            "1280x720",
            &[],
            ["bt709", "bt709", "iec61966-2-1", "tv"],
        ),
        (
            "primaries-only-720.mp4",
            "1280x720",
            &["-colorspace", "smpte170m", "-color_primaries", "bt470bg"],
            ["smpte170m", "bt709", "iec61966-2-1", "tv"],
        ),
    ];
    for (name, size, tags, [matrix, primaries, transfer, range]) in cases {
        let source = dir.join(name);
        let picture = format!("testsrc2=s={size}:r=30:d=0.1");
        let mut args = vec!["-f", "lavfi", "-i", &picture, "-c:v", "libx264", "-pix_fmt", "yuv420p"];
        args.extend_from_slice(tags);
        args.push(source.to_str().unwrap());
        ffmpeg(&args);
        let proxy = dir.join(format!("proxy-{name}"));
        intra_proxy(&source, &proxy).unwrap().expect("a proxy");
        let video = vidkit_media::probe(&proxy)
            .unwrap()
            .streams
            .into_iter()
            .find(|s| s.kind == "video")
            .unwrap();
        assert_eq!(
            [
                video.color_space.as_str(),
                video.color_primaries.as_str(),
                video.color_transfer.as_str(),
                video.color_range.as_str()
            ],
            [matrix, primaries, transfer, range],
            "{name}"
        );
    }
}
