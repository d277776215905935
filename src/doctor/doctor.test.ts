// tier: cloud
import { CloudFormationClient, CreateStackCommand, waitUntilStackCreateComplete } from '@aws-sdk/client-cloudformation';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AwsEmulator, startAwsEmulator } from '../test-support/aws-emulator';
import { tempDir, vidkit } from '../test-support/cli';
import { freePort } from '../test-support/ports';
import type { CheckResult } from './check';

// As in the CLI (sdk/aws-clients.ts): no notice about the SDK's future Node requirement.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// No AWS configuration of this machine's may reach the checks: each run says what it has.
const NO_AWS = {
  AWS_CONFIG_FILE: '/nonexistent/aws-config',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_PROFILE: '',
  AWS_REGION: '',
  AWS_DEFAULT_REGION: '',
  AWS_ACCESS_KEY_ID: '',
  AWS_SECRET_ACCESS_KEY: '',
  AWS_SESSION_TOKEN: '',
  AWS_ENDPOINT_URL: '',
  XDG_CACHE_HOME: tempDir('vidkit-doctor-cache-'),
};

function doctorJson(env: Record<string, string>, args: string[] = []): { status: number; ok: boolean; checks: Record<string, CheckResult> } {
  const run = vidkit(['doctor', '--json', ...args], { env: { ...NO_AWS, ...env } });
  const report = JSON.parse(run.stdout) as { ok: boolean; checks: CheckResult[] };
  return { status: run.status, ok: report.ok, checks: Object.fromEntries(report.checks.map((c) => [c.name, c])) };
}

test('doctor passes on this machine: browser, capture, addon and fonts ok; no AWS is a warning with a fix', () => {
  const report = doctorJson({});
  assert.equal([report.status, report.ok], [0, true]);
  assert.equal(Object.keys(report.checks), ['browser', 'capture', 'gl', 'sandbox', 'addon', 'fonts', 'aws', 'stack']);
  // User namespaces work on this machine, where vidkit runs as root: the sandbox runs in one of its own.
  assert.equal([report.checks.sandbox.status, report.checks.sandbox.required], ['ok', false]);
  assert.match(report.checks.sandbox.detail, process.getuid?.() === 0 ? /^Chromium's sandbox: as uid 1000 of a user namespace of its own/ : /^Chromium's sandbox: user namespaces$/);
  for (const name of ['browser', 'capture', 'addon', 'fonts']) assert.is(report.checks[name].status, 'ok', JSON.stringify(report.checks[name]));
  assert.match(report.checks.browser.detail, /chromium/i);
  assert.match(report.checks.addon.detail, /libavcodec \d+/);
  // Drawn by the browser through the render's glyph check: a name in each script of the fallback faces.
  assert.match(
    report.checks.fonts.detail,
    /drawn: Simplified Chinese, Traditional Chinese, Japanese, Korean, Devanagari, Bengali, Tamil, Thai, Hebrew, Arabic, Cyrillic, Greek, Vietnamese, colour emoji;/,
  );
  assert.equal([report.checks.aws.status, report.checks.aws.required], ['warn', false]);
  assert.match(report.checks.aws.fix!, /AWS_ACCESS_KEY_ID/);
  assert.is(report.checks.stack.status, 'skip');
});

test('doctor without a browser: fails the browser with a fix line, exit 3', () => {
  const run = vidkit(['doctor'], { env: { ...NO_AWS, VIDKIT_BROWSER: '/nonexistent/chromium' } });
  assert.is(run.status, 3, run.stderr);
  const lines = run.stdout.split('\n');
  const at = lines.findIndex((l) => /^fail +browser +VIDKIT_BROWSER=\/nonexistent\/chromium is not an executable file$/.test(l));
  assert.ok(at >= 0, run.stdout);
  assert.match(lines[at + 1], /^ +fix: apt-get install chromium-headless-shell, or set VIDKIT_BROWSER to a Chromium binary$/);
  assert.ok(lines.some((l) => /^skip +capture/.test(l)), run.stdout);
  assert.ok(lines.some((l) => /^skip +fonts +no browser to draw the scripts with$/.test(l)), run.stdout);
  assert.ok(lines.includes('1 required check failed'), run.stdout);
});

test('doctor with AWS unreachable: the stack check warns within its deadline, exit 0', async () => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  const report = doctorJson({ AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE1234', AWS_SECRET_ACCESS_KEY: 'x', AWS_ENDPOINT_URL: closed });
  assert.equal([report.status, report.checks.aws.status], [0, 'ok']);
  assert.match(report.checks.aws.detail, /access key …1234, region us-east-1/);
  assert.is(report.checks.stack.status, 'warn');
  assert.match(report.checks.stack.detail, /cannot reach AWS/);
});

let emu: AwsEmulator | undefined;

test('doctor against an AWS emulator: a missing stack warns with the deploy command; a deployed one is ok', async () => {
  emu = await startAwsEmulator();
  const missing = doctorJson(emu.env);
  assert.equal([missing.status, missing.checks.stack.status], [0, 'warn']);
  assert.is(missing.checks.stack.detail, 'no stack vidkit-render in us-east-1');
  assert.match(missing.checks.stack.fix!, /^vidkit cloudfn deploy /);

  // A stand-in for what deploy creates: the bucket output doctor reports.
  const cfn = new CloudFormationClient({ endpoint: emu.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const template = {
    Resources: { Bucket: { Type: 'AWS::S3::Bucket', Properties: { BucketName: 'doctor-renders' } } },
    Outputs: { RenderBucketName: { Value: { Ref: 'Bucket' } } },
  };
  await cfn.send(new CreateStackCommand({ StackName: 'doctor-stack', TemplateBody: JSON.stringify(template) }));
  await waitUntilStackCreateComplete({ client: cfn, maxWaitTime: 60, minDelay: 1 }, { StackName: 'doctor-stack' });
  const found = doctorJson(emu.env, ['--stack-name', 'doctor-stack']);
  assert.equal([found.status, found.checks.stack.status], [0, 'ok']);
  assert.match(found.checks.stack.detail, /^doctor-stack CREATE_COMPLETE: bucket doctor-renders/);
});

test.after(async () => {
  await emu?.stop();
});

test.run();
