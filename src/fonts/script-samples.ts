/**
 * A name in each script the bundled fallback faces are for (docs/explanation/fonts.md): what
 * `vidkit doctor` checks the browser can draw, and what the tests draw.
 */
export const SCRIPT_SAMPLES: ReadonlyArray<{ id: string; script: string; text: string }> = [
  { id: 'sc', script: 'Simplified Chinese', text: '王小明 张伟' },
  { id: 'tc', script: 'Traditional Chinese', text: '陳大文 黃志強' },
  { id: 'ja', script: 'Japanese', text: '山田花子 さくら カタカナ' },
  { id: 'ko', script: 'Korean', text: '김민준 이서연' },
  { id: 'devanagari', script: 'Devanagari', text: 'अर्जुन शर्मा' },
  { id: 'bengali', script: 'Bengali', text: 'অর্জুন দাস' },
  { id: 'tamil', script: 'Tamil', text: 'அருண் குமார்' },
  { id: 'thai', script: 'Thai', text: 'สมชาย ใจดี' },
  { id: 'hebrew', script: 'Hebrew', text: 'דוד כהן' },
  { id: 'arabic', script: 'Arabic', text: 'محمد علي' },
  { id: 'cyrillic', script: 'Cyrillic', text: 'Иван Петров' },
  { id: 'greek', script: 'Greek', text: 'Γιώργος Παπαδόπουλος' },
  { id: 'vietnamese', script: 'Vietnamese', text: 'Nguyễn Thị Hương' },
  { id: 'emoji', script: 'colour emoji', text: '🎉😀👍🏽❤️' },
];
