mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::*;
use vidkit_media::{page_media, PageMedia};

fn ffmpeg(args: &[&str]) {
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "ffmpeg {args:?}");
}

/// One second of a 1 kHz tone (amplitude 1/8) encoded with `codec` into `name`.
fn tone(dir: &Path, name: &str, codec: &str) -> PathBuf {
    let path = dir.join(name);
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "sine=f=1000:d=1",
        "-c:a",
        codec,
        path.to_str().unwrap(),
    ]);
    path
}

/// The RMS level of a file's first audio stream as the ffmpeg CLI decodes it, 0 to 1.
fn rms(path: &Path) -> f64 {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(path)
        .args(["-map", "0:a:0", "-ac", "1", "-f", "s16le", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let samples: Vec<f64> = out
        .stdout
        .chunks_exact(2)
        .map(|b| f64::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0)
        .collect();
    (samples.iter().map(|s| s * s).sum::<f64>() / samples.len() as f64).sqrt()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn audio_the_browser_does_not_play_gets_a_flac_copy_of_the_same_sound() {
    let dir = test_dir("page-media-flac");
    for (name, codec) in [
        ("tone.wma", "wmav2"),
        ("tone.ac3", "ac3"),
        ("tone.eac3", "eac3"),
        ("tone.m4a", "alac"),
    ] {
        let source = tone(&dir, name, codec);
        let stem = dir.join(format!("{name}.proxy"));
        let media = page_media(&source, &stem).unwrap_or_else(|e| panic!("{name}: {e}"));
        let proxy = dir.join(format!("{name}.proxy.flac"));
        assert_eq!(media, PageMedia::AudioProxy(proxy.clone()), "{name}");
        let probed = ffprobe(
            &proxy,
            &[
                "-show_entries",
                "stream=codec_name,sample_rate,channels:format=duration",
            ],
        );
        let stream = &probed["streams"][0];
        assert_eq!(
            (
                stream["codec_name"].as_str(),
                stream["sample_rate"].as_str(),
                stream["channels"].as_i64()
            ),
            (Some("flac"), Some("48000"), Some(2)),
            "{name}"
        );
        let seconds: f64 = probed["format"]["duration"].as_str().unwrap().parse().unwrap();
        assert!((seconds - 1.0).abs() < 0.05, "{name}: the proxy lasts {seconds} s");
        // The same level as the source (lossy codecs shift it a little): 20·log10 within 1 dB.
        let (source_level, proxy_level) = (rms(&source), rms(&proxy));
        let db = 20.0 * (proxy_level / source_level).log10();
        assert!(
            source_level > 0.05 && db.abs() < 1.0,
            "{name}: source RMS {source_level}, proxy {proxy_level} ({db:.2} dB)"
        );
    }
}

#[test]
fn audio_the_browser_plays_and_video_with_alpha_are_played_as_they_are() {
    let dir = test_dir("page-media-source");
    let mut sources = vec![
        tone(&dir, "tone.mp3", "libmp3lame"),
        tone(&dir, "tone.ogg", "libopus"),
        tone(&dir, "tone.flac", "flac"),
    ];
    // An MP3 with cover art: the picture is not a video to proxy.
    let cover = dir.join("cover.png");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=c=red:s=64x64",
        "-frames:v",
        "1",
        cover.to_str().unwrap(),
    ]);
    let with_cover = dir.join("with-cover.mp3");
    ffmpeg(&[
        "-i",
        sources[0].to_str().unwrap(),
        "-i",
        cover.to_str().unwrap(),
        "-map",
        "0",
        "-map",
        "1",
        "-c:a",
        "copy",
        "-disposition:v",
        "attached_pic",
        with_cover.to_str().unwrap(),
    ]);
    sources.push(with_cover);
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
    sources.push(alpha);
    let before = files_in(&dir);
    for source in &sources {
        let media = page_media(source, &dir.join("proxy")).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        assert_eq!(media, PageMedia::Source, "{}", source.display());
    }
    assert_eq!(files_in(&dir), before, "no proxy written");
}

#[test]
fn a_video_without_sound_plays_as_it_is_once_its_first_picture_decodes() {
    let dir = test_dir("page-media-video");
    let source = dir.join("clip.mp4");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=160x90:r=30:d=0.5",
        "-c:v",
        "libx264",
        "-g",
        "15",
        source.to_str().unwrap(),
    ]);
    let before = files_in(&dir);
    let media = page_media(&source, &dir.join("clip.proxy")).unwrap();
    assert_eq!(media, PageMedia::Source);
    assert_eq!(files_in(&dir), before, "no proxy written");
}

#[test]
fn a_file_that_cannot_be_decoded_fails_with_libavs_reason_and_leaves_nothing() {
    let dir = test_dir("page-media-bad");
    let empty = dir.join("empty.mp4");
    std::fs::write(&empty, b"").unwrap();
    let text = dir.join("text.mp4");
    std::fs::write(&text, b"this is not a video\n").unwrap();
    // An MP4 whose index (at the end) is cut off.
    let whole = dir.join("whole.mp4");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=160x90:r=30:d=1",
        "-c:v",
        "libx264",
        whole.to_str().unwrap(),
    ]);
    let bytes = std::fs::read(&whole).unwrap();
    let truncated = dir.join("truncated.mp4");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::remove_file(&whole).unwrap();
    let not_audio = dir.join("not-audio.mp3");
    std::fs::write(&not_audio, vec![0x42u8; 4096]).unwrap();
    let before = files_in(&dir);
    // libav's MP3 reader, which the name makes it try first, gives up with its own reason.
    let invalid = "Invalid data found when processing input";
    for (input, reason) in [
        (&empty, invalid),
        (&text, invalid),
        (&truncated, invalid),
        (&not_audio, "Invalid argument"),
    ] {
        let error = page_media(input, &dir.join("proxy")).unwrap_err().to_string();
        assert_eq!(
            error,
            format!("{}: cannot open it as a media file: {reason}", input.display())
        );
    }
    assert_eq!(files_in(&dir), before, "no proxy left behind");
}
