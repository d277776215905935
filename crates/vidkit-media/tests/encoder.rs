mod support;

use std::sync::mpsc;
use std::time::Duration;

use support::*;
use vidkit_media::{probe, Encoder, ErrorCode, InputFormat, MediaError, REPEAT_CAPACITY};

#[test]
fn encodes_every_pushed_jpeg_with_exact_count_and_duration() {
    let out = test_dir("count").join("segment.mp4");
    let levels: Vec<u8> = (0..45).map(|i| (i * 5) as u8).collect();
    let stats = encode_greys(&out, &levels);
    assert_eq!(stats.frames, 45);
    assert_eq!(stats.bytes, std::fs::metadata(&out).unwrap().len());

    let probed = probe(&out).unwrap();
    let video = &probed.streams[0];
    assert_eq!(
        (video.kind.as_str(), video.codec.as_str(), video.pix_fmt.as_str()),
        ("video", "h264", "yuv420p")
    );
    assert_eq!((video.width, video.height, video.frame_count), (WIDTH, HEIGHT, 45));
    assert!((video.fps - 30.0).abs() < 1e-9, "fps {}", video.fps);
    assert!(
        (video.duration_seconds - 1.5).abs() < 1e-6,
        "stream duration {}",
        video.duration_seconds
    );
    assert!(
        (probed.duration_seconds - 1.5).abs() < 1e-6,
        "container duration {}",
        probed.duration_seconds
    );

    let (frames, duration) = ffprobe_frames_and_duration(&out);
    assert_eq!(frames, 45);
    assert!((duration - 1.5).abs() < 1e-6, "ffprobe duration {duration}");
    assert_greys(&decode_frames(&out), &levels);
}

#[test]
fn x264_params_and_threads_reach_x264() {
    let out = test_dir("x264-params").join("segment.mp4");
    let mut opts = options(&out, InputFormat::Jpeg);
    opts.x264_params = Some("me=dia:subme=1".into());
    opts.threads = 1;
    let mut encoder = Encoder::start(opts).unwrap();
    let levels = [10, 40, 70, 100];
    for level in levels {
        encoder.push(grey_jpeg(level)).unwrap();
        encoder.wait_ready().unwrap();
    }
    assert_eq!(encoder.finish().unwrap().frames, 4);
    // x264 writes the settings it encoded with into the stream (an unregistered-user-data SEI).
    let bytes = std::fs::read(&out).unwrap();
    let settings = String::from_utf8_lossy(&bytes);
    for want in [" threads=1 ", " me=dia ", " subme=1 "] {
        assert!(settings.contains(want), "x264's settings SEI lacks '{want}'");
    }
    assert_greys(&decode_frames(&out), &levels);
}

#[test]
fn output_is_tagged_bt709_limited_with_closed_gops_starting_on_an_idr() {
    let out = test_dir("tags").join("segment.mp4");
    encode_greys(&out, &[10, 20, 30, 40, 50, 60, 70, 80]);

    let json = ffprobe(
        &out,
        &[
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=color_space,color_transfer,color_primaries,color_range,has_b_frames",
        ],
    );
    let stream = &json["streams"][0];
    for (key, want) in [
        ("color_space", "bt709"),
        ("color_transfer", "bt709"),
        ("color_primaries", "bt709"),
        ("color_range", "tv"),
    ] {
        assert_eq!(stream[key], want, "{key}");
    }
    let probed = &probe(&out).unwrap().streams[0];
    assert_eq!(
        (
            probed.color_space.as_str(),
            probed.color_transfer.as_str(),
            probed.color_primaries.as_str(),
            probed.color_range.as_str()
        ),
        ("bt709", "bt709", "bt709", "tv")
    );

    let packets = ffprobe(&out, &["-select_streams", "v:0", "-show_entries", "packet=flags"]);
    assert!(
        packets["packets"][0]["flags"].as_str().unwrap().starts_with('K'),
        "first packet must be a keyframe"
    );
    let frames = ffprobe(
        &out,
        &["-select_streams", "v:0", "-show_entries", "frame=pict_type,key_frame"],
    );
    assert_eq!(
        (&frames["frames"][0]["pict_type"], &frames["frames"][0]["key_frame"]),
        (&"I".into(), &1.into())
    );
    let nals = first_packet_nal_types(&out);
    assert!(
        nals.contains(&5),
        "the first packet must hold an IDR slice (NAL type 5), got {nals:?}"
    );
    // x264 records its settings in the stream; an open GOP would read open_gop=1.
    let bytes = std::fs::read(&out).unwrap();
    assert!(
        bytes.windows(10).any(|w| w == b"open_gop=0"),
        "x264 settings must say open_gop=0"
    );
}

#[test]
fn keyframe_interval_puts_keyframes_on_the_render_frame_grid() {
    let out = test_dir("keyframe-grid").join("segment.mp4");
    let mut opts = options(&out, InputFormat::Jpeg);
    // A segment of render frames 7..19 on a grid of 5: keyframes at its first frame (closed GOP)
    // and at render frames 10 and 15, i.e. segment frames 0, 3 and 8.
    opts.keyframe_interval = Some(5);
    opts.first_frame = 7;
    let mut encoder = Encoder::start(opts).unwrap();
    for level in 0..12u8 {
        // Every frame differs from the last: x264 has no reason of its own for a keyframe here.
        encoder.push(grey_jpeg(100 + level)).unwrap();
        encoder.wait_ready().unwrap();
    }
    encoder.finish().unwrap();
    let frames = ffprobe(&out, &["-select_streams", "v:0", "-show_entries", "frame=key_frame"]);
    let keys: Vec<usize> = frames["frames"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, f)| f["key_frame"] == 1)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(keys, vec![0, 3, 8]);
}

#[test]
fn keyframe_interval_is_for_mp4_and_at_least_one() {
    let out = test_dir("keyframe-refused").join("segment.webm");
    let mut opts = options(&out, InputFormat::Jpeg);
    opts.keyframe_interval = Some(0);
    let error = Encoder::start(opts.clone()).err().unwrap().to_string();
    assert_eq!(error, "keyframeInterval must be at least 1 frame");
    opts.keyframe_interval = Some(30);
    opts.format = vidkit_media::OutputFormat::Webm;
    let error = Encoder::start(opts).err().unwrap().to_string();
    assert_eq!(
        error,
        "keyframeInterval is for the mp4 format (H.264) only, got format webm"
    );
}

/// Largest per-channel difference between `want` and the centre of every decoded frame.
fn worst_error(frames: &[Yuv], want: [u8; 3]) -> f64 {
    frames
        .iter()
        .flat_map(|f| {
            f.centre_rgb()
                .into_iter()
                .zip(want)
                .map(|(got, want)| (got - f64::from(want)).abs())
        })
        .fold(0.0, f64::max)
}

const COLOURS: [[u8; 3]; 6] = [
    [255, 0, 0],
    [0, 255, 0],
    [0, 0, 255],
    [128, 128, 128],
    [255, 255, 255],
    [20, 20, 20],
];

#[test]
fn jpeg_colours_round_trip_through_bt709_limited_within_4() {
    let dir = test_dir("colour-jpeg");
    for (i, rgb) in COLOURS.into_iter().enumerate() {
        let out = dir.join(format!("colour-{i}.mp4"));
        let mut encoder = Encoder::start(options(&out, InputFormat::Jpeg)).unwrap();
        for _ in 0..3 {
            encoder.push(solid_jpeg(rgb)).unwrap();
        }
        encoder.finish().unwrap();
        let error = worst_error(&decode_frames(&out), rgb);
        assert!(error <= 4.0, "{rgb:?} came back off by {error:.2}");
    }
}

#[test]
fn png_colours_round_trip_through_bt709_limited_within_4() {
    let dir = test_dir("colour-png");
    for (i, rgb) in COLOURS.into_iter().enumerate() {
        let out = dir.join(format!("colour-{i}.mp4"));
        let mut encoder = Encoder::start(options(&out, InputFormat::Png)).unwrap();
        for _ in 0..3 {
            encoder.push(solid_png(rgb)).unwrap();
        }
        encoder.finish().unwrap();
        let error = worst_error(&decode_frames(&out), rgb);
        assert!(error <= 4.0, "{rgb:?} came back off by {error:.2}");
    }
}

#[test]
fn push_repeat_reencodes_the_previous_frame() {
    let out = test_dir("repeat").join("segment.mp4");
    let mut encoder = Encoder::start(options(&out, InputFormat::Jpeg)).unwrap();
    assert_eq!(encoder.push(grey_jpeg(40)).unwrap(), 0);
    assert_eq!(encoder.push(grey_jpeg(120)).unwrap(), 1);
    assert_eq!(encoder.push_repeat().unwrap(), 2);
    assert_eq!(encoder.push_repeat().unwrap(), 3);
    assert_eq!(encoder.push(grey_jpeg(200)).unwrap(), 4);
    assert_eq!(encoder.push_repeat().unwrap(), 5);
    let stats = encoder.finish().unwrap();
    assert_eq!(stats.frames, 6);
    assert_eq!(ffprobe_frames_and_duration(&out).0, 6);
    assert_greys(&decode_frames(&out), &[40, 120, 120, 120, 200, 200]);
}

#[test]
fn push_repeat_before_any_frame_is_refused() {
    let out = test_dir("repeat-first").join("segment.mp4");
    let mut encoder = Encoder::start(options(&out, InputFormat::Jpeg)).unwrap();
    let error = encoder.push_repeat().unwrap_err();
    assert!(matches!(error, MediaError::Usage(_)));
    assert!(error.to_string().contains("no frame has been pushed yet"), "{error}");
}

#[test]
fn abort_deletes_the_partial_file() {
    let out = test_dir("abort").join("segment.mp4");
    let mut encoder = Encoder::start(options(&out, InputFormat::Jpeg)).unwrap();
    for level in 0..10 {
        encoder.push(grey_jpeg(level * 10)).unwrap();
    }
    assert!(out.exists(), "the output is created when the encoder starts");
    encoder.abort().unwrap();
    assert!(!out.exists());
}

#[test]
fn dropping_an_unfinished_encoder_deletes_the_partial_file() {
    let out = test_dir("drop").join("segment.mp4");
    let mut encoder = Encoder::start(options(&out, InputFormat::Jpeg)).unwrap();
    encoder.push(grey_jpeg(50)).unwrap();
    drop(encoder);
    assert!(!out.exists());
}

#[test]
fn corrupt_jpeg_fails_naming_the_frame_and_leaves_no_file() {
    let out = test_dir("corrupt").join("segment.mp4");
    let mut encoder = Encoder::start(options(&out, InputFormat::Jpeg)).unwrap();
    encoder.push(grey_jpeg(10)).unwrap();
    encoder.push(grey_jpeg(20)).unwrap();
    encoder.push(b"this is not a JPEG at all".to_vec()).unwrap();

    // The failure reaches waiters, later pushes and finish alike.
    let error = loop {
        match encoder.wait_ready().and_then(|()| encoder.push(grey_jpeg(30))) {
            Ok(_) => std::thread::sleep(Duration::from_millis(5)),
            Err(error) => break error,
        }
    };
    assert!(matches!(error, MediaError::Frame { frame: 2, .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with("frame 2 (0-based, in push order): cannot decode the pushed JPEG"),
        "{error}"
    );
    let finished = encoder.finish().unwrap_err();
    assert_eq!(finished, error);
    assert!(!out.exists());
}

#[test]
fn wait_ready_and_on_ready_report_room_and_failures() {
    let out = test_dir("ready").join("segment.mp4");
    let mut opts = options(&out, InputFormat::Jpeg);
    opts.queue_capacity = 2;
    let mut encoder = Encoder::start(opts).unwrap();
    let jpeg = grey_jpeg(90);
    for _ in 0..12 {
        encoder.push(jpeg.clone()).unwrap();
    }
    encoder.wait_ready().unwrap();
    assert!(encoder.in_flight() < 2);

    for _ in 0..12 {
        encoder.push(jpeg.clone()).unwrap();
    }
    let (tx, rx) = mpsc::channel();
    encoder.on_ready(Box::new(move |outcome| tx.send(outcome).unwrap()));
    assert_eq!(rx.recv_timeout(Duration::from_secs(30)).unwrap(), Ok(()));
    assert_eq!(encoder.finish().unwrap().frames, 24);

    let out = test_dir("ready-failed").join("segment.mp4");
    let mut encoder = Encoder::start(options(&out, InputFormat::Jpeg)).unwrap();
    encoder.push(Vec::new()).unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::sleep(Duration::from_millis(200));
    encoder.on_ready(Box::new(move |outcome| tx.send(outcome).unwrap()));
    let error = rx.recv_timeout(Duration::from_secs(30)).unwrap().unwrap_err();
    assert!(error.to_string().contains("frame 0"), "{error}");
}

#[test]
fn repeats_wait_behind_a_bound_of_their_own_not_the_pictures() {
    let out = test_dir("repeat-room").join("segment.mp4");
    let mut opts = options(&out, InputFormat::Jpeg);
    opts.queue_capacity = 2;
    let mut encoder = Encoder::start(opts).unwrap();
    encoder.push(grey_jpeg(60)).unwrap();
    for _ in 0..50 {
        encoder.push_repeat().unwrap();
    }
    // 50 repeats hold no pixels: there is room at once (the callback runs on this thread), where
    // counted as pictures they would wait for x264 to take all but one of them.
    let (tx, rx) = mpsc::channel();
    let here = std::thread::current().id();
    encoder.on_ready(Box::new(move |outcome| {
        tx.send((outcome, std::thread::current().id())).unwrap()
    }));
    assert_eq!(rx.recv_timeout(Duration::from_secs(30)).unwrap(), (Ok(()), here));

    // Their own bound holds: past it, waiting leaves fewer than it in flight.
    for _ in 0..REPEAT_CAPACITY + 100 {
        encoder.push_repeat().unwrap();
    }
    encoder.wait_ready().unwrap();
    assert!(
        encoder.in_flight() < REPEAT_CAPACITY,
        "{} in flight",
        encoder.in_flight()
    );
    let frames = 1 + 50 + REPEAT_CAPACITY + 100;
    assert_eq!(encoder.finish().unwrap().frames, frames as u64);
    assert_eq!(ffprobe_frames_and_duration(&out).0, frames as u64);
    assert_greys(&decode_frames(&out), &vec![60; frames]);
}

#[test]
fn invalid_options_are_refused_with_the_option_name() {
    let out = test_dir("options").join("segment.mp4");
    let refuse = |change: &dyn Fn(&mut vidkit_media::EncoderOptions)| {
        let mut opts = options(&out, InputFormat::Jpeg);
        change(&mut opts);
        match Encoder::start(opts) {
            Err(MediaError::InvalidOptions(message)) => message,
            other => panic!("expected InvalidOptions, got {:?}", other.map(|_| ())),
        }
    };
    assert!(refuse(&|o| o.width = 321).starts_with("width must be a positive even number"));
    assert!(refuse(&|o| o.height = 0).starts_with("height must be a positive even number"));
    assert!(refuse(&|o| o.fps_den = 0).starts_with("fpsNum/fpsDen must both be positive"));
    assert!(refuse(&|o| o.crf = 52).starts_with("crf must be 0 to 51"));
    assert!(refuse(&|o| o.preset = "fastest".into()).contains("got \"fastest\""));
    assert!(refuse(&|o| o.queue_capacity = 0).starts_with("queueCapacity must be at least 1"));
    assert!(refuse(&|o| o.x264_params = Some("me=dia:subme".into())).starts_with("x264Params must be key=value pairs"));
    assert!(refuse(&|o| o.x264_params = Some("me=dia;rm -rf".into())).contains("got \"me=dia;rm -rf\""));
    assert!(refuse(&|o| o.threads = 65).starts_with("threads must be 0 (automatic) to 64"));
    assert!(!out.exists(), "refused options create no file");
}

#[test]
fn unwritable_output_is_an_io_error_naming_the_path() {
    let out = test_dir("unwritable").join("missing-dir").join("segment.mp4");
    let error = Encoder::start(options(&out, InputFormat::Jpeg)).err().unwrap();
    assert!(matches!(error, MediaError::Io { .. }), "{error:?}");
    assert_eq!(error.code(), ErrorCode::Io);
    assert!(
        error
            .to_string()
            .contains("missing-dir/segment.mp4: cannot create the output file"),
        "{error}"
    );
}
