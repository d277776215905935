mod support;

use std::path::PathBuf;

use support::*;
use vidkit_media::{
    concat_segments, probe, AudioMix, AudioTrack, ConcatOptions, EncodedSoundtrack, Encoder, InputFormat, MediaError,
    OutputFormat, Soundtrack,
};

/// Grey levels for `count` frames starting at global frame `first`: distinct for every frame.
fn levels(first: usize, count: usize) -> Vec<u8> {
    (first..first + count).map(|i| (10 + i * 7) as u8).collect()
}

/// Encodes segments of the given lengths, each frame a distinct grey, and returns their paths
/// and the grey of every frame in order.
fn segments(dir: &std::path::Path, lengths: &[usize]) -> (Vec<PathBuf>, Vec<u8>) {
    let mut paths = Vec::new();
    let mut all = Vec::new();
    for (i, &length) in lengths.iter().enumerate() {
        let path = dir.join(format!("segment-{i}.mp4"));
        let greys = levels(all.len(), length);
        assert_eq!(encode_greys(&path, &greys).frames, length as u64);
        all.extend(greys);
        paths.push(path);
    }
    (paths, all)
}

/// A mono 16-bit WAV of a 440 Hz tone at half scale.
fn write_tone(path: &std::path::Path, seconds: f64) {
    let rate = 44_100u32;
    let samples: Vec<i16> = (0..(seconds * rate as f64) as usize)
        .map(|i| ((i as f64 * 440.0 * std::f64::consts::TAU / rate as f64).sin() * 16_000.0) as i16)
        .collect();
    let data = (samples.len() * 2) as u32;
    let mut wav = Vec::new();
    for part in [
        &b"RIFF"[..],
        &(36 + data).to_le_bytes(),
        b"WAVEfmt ",
        &16u32.to_le_bytes(),
        &1u16.to_le_bytes(),
        &1u16.to_le_bytes(),
    ] {
        wav.extend_from_slice(part);
    }
    for part in [rate.to_le_bytes(), (rate * 2).to_le_bytes()] {
        wav.extend_from_slice(&part);
    }
    for part in [2u16.to_le_bytes(), 16u16.to_le_bytes()] {
        wav.extend_from_slice(&part);
    }
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data.to_le_bytes());
    for sample in samples {
        wav.extend_from_slice(&sample.to_le_bytes());
    }
    std::fs::write(path, wav).unwrap();
}

fn tone_mix(source: PathBuf) -> AudioMix {
    AudioMix {
        duration_seconds: 1.0,
        tracks: vec![AudioTrack {
            source,
            start_seconds: 0.25,
            offset_seconds: 0.0,
            playback_rate: 1.0,
            looped: false,
            volume: 0.8,
            end_seconds: None,
            volume_points: Vec::new(),
        }],
    }
}

/// Joins `inputs` into `out` (faststart) with `audio`, and returns the file's bytes.
fn join_with_sound(inputs: &[PathBuf], out: &std::path::Path, audio: Soundtrack) -> Vec<u8> {
    let options = ConcatOptions {
        faststart: true,
        audio: Some(audio),
        ..ConcatOptions::default()
    };
    concat_segments(inputs, out, &options).unwrap();
    std::fs::read(out).unwrap()
}

#[test]
fn a_soundtrack_encoded_ahead_is_muxed_byte_for_byte_as_the_concat_would_mix_it() {
    let dir = test_dir("concat-encoded-soundtrack");
    let (inputs, _) = segments(&dir, &[12, 18]);
    let tone = dir.join("tone.wav");
    write_tone(&tone, 2.0);
    let joined = |name: &str, audio: Soundtrack| join_with_sound(&inputs, &dir.join(name), audio);
    let mixed = joined("mixed.mp4", Soundtrack::Mix(tone_mix(tone.clone())));
    let encoded = EncodedSoundtrack::encode(&tone_mix(tone.clone()), OutputFormat::Mp4)
        .unwrap()
        .expect("a mix with a track has a soundtrack");
    let ahead = joined("ahead.mp4", Soundtrack::Encoded(encoded));
    assert!(
        mixed == ahead,
        "the two files differ ({} and {} bytes)",
        mixed.len(),
        ahead.len()
    );
    let streams = ffprobe(&dir.join("ahead.mp4"), &["-show_streams"]);
    let kinds: Vec<&str> = streams["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["codec_type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["video", "audio"]);

    let silent = AudioMix {
        tracks: Vec::new(),
        duration_seconds: 1.0,
    };
    assert!(EncodedSoundtrack::encode(&silent, OutputFormat::Mp4).unwrap().is_none());

    let for_webm = EncodedSoundtrack::encode(&tone_mix(tone), OutputFormat::Webm)
        .unwrap()
        .unwrap();
    let options = ConcatOptions {
        audio: Some(Soundtrack::Encoded(for_webm)),
        ..ConcatOptions::default()
    };
    let error = concat_segments(&inputs, &dir.join("wrong.mp4"), &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the soundtrack was encoded for webm, not for this mp4 output"
    );
    assert!(!dir.join("wrong.mp4").exists());
}

#[test]
fn a_soundtrack_kept_in_a_file_is_muxed_byte_for_byte_as_the_concat_would_mix_it_by_every_concat() {
    let dir = test_dir("concat-kept-soundtrack");
    let (inputs, _) = segments(&dir, &[12, 18]);
    let tone = dir.join("tone.wav");
    write_tone(&tone, 2.0);
    let joined = |name: &str, audio: Soundtrack| join_with_sound(&inputs, &dir.join(name), audio);
    let mixed = joined("mixed.mp4", Soundtrack::Mix(tone_mix(tone.clone())));
    let kept = dir.join("tone.sound");
    EncodedSoundtrack::encode(&tone_mix(tone.clone()), OutputFormat::Mp4)
        .unwrap()
        .unwrap()
        .save(&kept)
        .unwrap();
    for name in ["first.mp4", "second.mp4"] {
        let read = EncodedSoundtrack::load(&kept, OutputFormat::Mp4).unwrap();
        assert!(
            mixed == joined(name, Soundtrack::Encoded(read)),
            "{name} differs from the mixed join"
        );
    }

    // Opus marks its last packet's padding in side data: it is kept too.
    let opus = dir.join("tone-opus.sound");
    EncodedSoundtrack::encode(&tone_mix(tone), OutputFormat::Webm)
        .unwrap()
        .unwrap()
        .save(&opus)
        .unwrap();
    let again = dir.join("tone-opus-again.sound");
    EncodedSoundtrack::load(&opus, OutputFormat::Webm)
        .unwrap()
        .save(&again)
        .unwrap();
    assert!(std::fs::read(&opus).unwrap() == std::fs::read(&again).unwrap());

    let error = EncodedSoundtrack::load(&opus, OutputFormat::Mp4).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("was encoded for webm, not for this mp4 output"),
        "{error}"
    );
    let bytes = std::fs::read(&kept).unwrap();
    std::fs::write(&kept, &bytes[..bytes.len() - 3]).unwrap();
    let error = EncodedSoundtrack::load(&kept, OutputFormat::Mp4).unwrap_err();
    assert!(error.to_string().contains("not a soundtrack vidkit kept"), "{error}");
}

#[test]
fn joins_three_segments_into_continuous_timestamps_and_the_right_pictures() {
    let dir = test_dir("concat-three");
    let (inputs, greys) = segments(&dir, &[10, 7, 13]);
    let out = dir.join("joined.mp4");
    let stats = concat_segments(&inputs, &out, &ConcatOptions::default()).unwrap();
    assert_eq!(stats.frames, 30);
    assert!(
        (stats.duration_seconds - 1.0).abs() < 1e-6,
        "{}",
        stats.duration_seconds
    );
    assert_eq!(stats.bytes, std::fs::metadata(&out).unwrap().len());

    let (frames, duration) = ffprobe_frames_and_duration(&out);
    assert_eq!(frames, 30);
    assert!((duration - 1.0).abs() < 1e-6, "ffprobe duration {duration}");
    let dts = ffprobe_dts(&out);
    assert_eq!(dts.len(), 30);
    assert!(
        dts.windows(2).all(|w| w[0] < w[1]),
        "dts must increase strictly: {dts:?}"
    );
    assert_eq!(ffmpeg_decode_errors(&out), "", "the joined file must decode cleanly");
    assert_greys(&decode_frames(&out), &greys);

    let probed = &probe(&out).unwrap().streams[0];
    assert_eq!(
        (probed.frame_count, probed.codec.as_str(), probed.color_space.as_str()),
        (30, "h264", "bt709")
    );
}

#[test]
fn a_single_segment_is_remuxed() {
    let dir = test_dir("concat-single");
    let (inputs, greys) = segments(&dir, &[9]);
    let out = dir.join("joined.mp4");
    assert_eq!(
        concat_segments(&inputs, &out, &ConcatOptions::default())
            .unwrap()
            .frames,
        9
    );
    assert_eq!(ffprobe_frames_and_duration(&out), (9, 0.3));
    assert_greys(&decode_frames(&out), &greys);
}

#[test]
fn faststart_puts_the_index_before_the_media() {
    let dir = test_dir("concat-faststart");
    let (inputs, _) = segments(&dir, &[5, 6]);
    let fast = dir.join("fast.mp4");
    let plain = dir.join("plain.mp4");
    concat_segments(
        &inputs,
        &fast,
        &ConcatOptions {
            faststart: true,
            ..ConcatOptions::default()
        },
    )
    .unwrap();
    concat_segments(&inputs, &plain, &ConcatOptions::default()).unwrap();
    let position = |boxes: &[String], name: &str| boxes.iter().position(|b| b == name).unwrap();
    let fast_boxes = mp4_boxes(&fast);
    assert!(
        position(&fast_boxes, "moov") < position(&fast_boxes, "mdat"),
        "{fast_boxes:?}"
    );
    let plain_boxes = mp4_boxes(&plain);
    assert!(
        position(&plain_boxes, "moov") > position(&plain_boxes, "mdat"),
        "{plain_boxes:?}"
    );
    assert_eq!(ffprobe_frames_and_duration(&fast).0, 11);
}

#[test]
fn refuses_a_segment_of_another_size_naming_it() {
    let dir = test_dir("concat-mismatch");
    let (mut inputs, _) = segments(&dir, &[4, 4]);
    let odd = dir.join("bigger.mp4");
    let mut opts = options(&odd, InputFormat::Jpeg);
    opts.width = 640;
    opts.height = 360;
    let mut encoder = Encoder::start(opts).unwrap();
    encoder.push(grey_jpeg(100)).unwrap();
    encoder.finish().unwrap();
    inputs.push(odd.clone());

    let out = dir.join("joined.mp4");
    let error = concat_segments(&inputs, &out, &ConcatOptions::default()).unwrap_err();
    assert!(
        matches!(&error, MediaError::Segment { index: 2, path, .. } if *path == odd),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("segment 2 ({}): 640x360 h264", odd.display())),
        "{message}"
    );
    assert!(
        message
            .contains("640x360 h264 yuv420p at 30/1 fps does not match segment 0's 320x180 h264 yuv420p at 30/1 fps"),
        "{message}"
    );
    assert!(!out.exists(), "a refused concat leaves no output");
}

#[test]
fn refuses_a_segment_encoded_with_other_settings() {
    let dir = test_dir("concat-preset");
    let (mut inputs, _) = segments(&dir, &[4]);
    // ultrafast has no B-frames and one reference frame: its SPS differs from veryfast's.
    let other = dir.join("ultrafast.mp4");
    let mut opts = options(&other, InputFormat::Jpeg);
    opts.preset = "ultrafast".into();
    let mut encoder = Encoder::start(opts).unwrap();
    encoder.push(grey_jpeg(100)).unwrap();
    encoder.finish().unwrap();
    inputs.push(other);

    let error = concat_segments(&inputs, &dir.join("joined.mp4"), &ConcatOptions::default()).unwrap_err();
    assert!(matches!(&error, MediaError::Segment { index: 1, .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("parameter sets (SPS/PPS) differ from segment 0's"),
        "{error}"
    );
}

#[test]
fn refuses_to_overwrite_one_of_its_inputs() {
    let dir = test_dir("concat-overwrite");
    let (inputs, _) = segments(&dir, &[3, 3]);
    let before = std::fs::read(&inputs[1]).unwrap();
    let aliased = dir.join(".").join("segment-1.mp4");
    let error = concat_segments(&inputs, &aliased, &ConcatOptions::default()).unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("is also segment 1; write the joined file to another path"),
        "{error}"
    );
    assert_eq!(
        std::fs::read(&inputs[1]).unwrap(),
        before,
        "the segment must be untouched"
    );
}

#[test]
fn refuses_missing_and_empty_inputs() {
    let dir = test_dir("concat-missing");
    let out = dir.join("joined.mp4");
    let error = concat_segments(&[], &out, &ConcatOptions::default()).unwrap_err();
    assert_eq!(error.to_string(), "concatSegments needs at least one segment");

    let missing = dir.join("nope.mp4");
    let error = concat_segments(std::slice::from_ref(&missing), &out, &ConcatOptions::default()).unwrap_err();
    assert!(matches!(&error, MediaError::Segment { index: 0, .. }), "{error:?}");
    assert!(
        error.to_string().starts_with(&format!(
            "segment 0 ({}): cannot open it as a media file",
            missing.display()
        )),
        "{error}"
    );
    assert!(!out.exists());
}
