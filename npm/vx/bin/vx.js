#!/usr/bin/env node
// vx.js - the `vx` command of the @vx-build/vx npm package (docs/npm.md).
//
// The binaries are in one package per platform, an optionalDependency of
// this one that npm, pnpm and Yarn install only where its os, cpu and libc
// fit. This finds the one installed and runs its bin/vx with the user's
// arguments, stdin, stdout and stderr; it stays the parent (Node cannot
// exec) and passes signals on and the exit status back, a death by a
// signal as the same signal.
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

// Every platform package that exists, by `${process.platform} ${process.arch}`.
const PLATFORMS = {
  'linux x64': '@vx-build/linux-x64',
  'linux arm64': '@vx-build/linux-arm64',
};

function fail(lines) {
  process.stderr.write(lines.map((l) => 'vx: ' + l).join('\n') + '\n');
  process.exit(1);
}

// Node's report says which glibc it runs on; on musl (Alpine) there is none.
function glibcVersion() {
  try {
    return process.report.getReport().header.glibcVersionRuntime || null;
  } catch (e) {
    return null;
  }
}

function buildFromSource() {
  return [
    'the @vx-build/vx package has binaries for: ' +
      Object.keys(PLATFORMS).map((k) => k.replace(' ', '-')).join(', ') + ' (glibc)',
    'elsewhere, build vx from source (a C11 compiler, CMake >= 3.25, pkg-config and',
    'the development packages of libyaml, cJSON, xxHash and zstd; see the README):',
    '    cmake -S . -B build && cmake --build build',
    'and put build/vx and build/vx-sandbox-init side by side on PATH (or run',
    '`cmake --install build`), or point VX_BINARY_PATH at that vx.',
  ];
}

function binaryPath() {
  // For a vx built elsewhere (development): its vx-sandbox-init must be
  // beside it, as vx finds that from its own resolved path.
  const override = process.env.VX_BINARY_PATH;
  if (override) {
    if (!fs.existsSync(override))
      fail(['VX_BINARY_PATH names ' + override + ', which does not exist']);
    return override;
  }
  const key = process.platform + ' ' + process.arch;
  const pkg = PLATFORMS[key];
  if (!pkg)
    fail(['no vx binary is published for ' + process.platform + '-' + process.arch].concat(buildFromSource()));
  let dir;
  try {
    // package.json: every package has one; under Yarn PnP this is the
    // package's unplugged directory (preferUnplugged), a real one.
    dir = path.dirname(require.resolve(pkg + '/package.json'));
  } catch (e) {
    // A package manager leaves it out where its libc does not fit (the
    // report costs some milliseconds: asked only here)
    if (!glibcVersion())
      fail(['this Linux has no glibc (musl?): the published vx binaries need glibc'].concat(buildFromSource()));
    fail([
      pkg + ', the package with the vx binary for ' + process.platform + '-' + process.arch +
        ', is not installed beside @vx-build/vx.',
      'Optional dependencies left out (npm --omit=optional, --no-optional, pnpm --no-optional),',
      'or a node_modules made on another platform (copied, or a lockfile made without it:',
      'npm/cli#4828)? Install again: npm install -D @vx-build/vx (or pnpm add -D, yarn add -D).',
    ]);
  }
  return path.join(dir, 'bin', 'vx');
}

// True when a keyboard signal (^C, ^\) or a hangup already reached vx from
// its terminal: vx is in our process group, and that group is the
// terminal's foreground one (/proc/PID/stat: pgrp is field 5, tpgid field
// 8). Passing it on again would be vx's second ^C, which skips the tasks'
// grace. A signal sent to this process alone (kill PID, a parent's
// forwarding outside a terminal's foreground) is passed on.
function terminalSentIt(pid) {
  try {
    const stat = fs.readFileSync('/proc/' + pid + '/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pgrp = Number(f[2]);
    const tpgid = Number(f[5]);
    return tpgid > 0 && tpgid === pgrp;
  } catch (e) {
    return false;
  }
}

function run() {
  const bin = binaryPath();
  const child = childProcess.spawn(bin, process.argv.slice(2), { stdio: 'inherit' });

  const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
  const handlers = {};
  for (const sig of forwarded) {
    handlers[sig] = () => {
      if (sig !== 'SIGTERM' && terminalSentIt(child.pid))
        return;
      try {
        child.kill(sig);
      } catch (e) {
        // gone already: its exit is on its way
      }
    };
    process.on(sig, handlers[sig]);
  }

  child.on('error', (err) => {
    const why = err.code === 'ENOENT' && fs.existsSync(bin)
      ? (glibcVersion() ? ' (its ELF interpreter is missing)' : ' (this Linux has no glibc, which it needs)')
      : '';
    fail(['cannot run ' + bin + ': ' + err.message + why]);
  });

  child.on('exit', (code, signal) => {
    for (const sig of forwarded)
      process.removeListener(sig, handlers[sig]);
    if (signal) {
      // The same death for whoever waits on us: with no listener left the
      // signal's default action ends this process here. One Node ignores
      // (SIGPIPE) leaves the shell's number for it.
      try {
        process.kill(process.pid, signal);
      } catch (e) {
        // fall through
      }
      process.exit(128 + (os.constants.signals[signal] || 0));
    }
    process.exit(code === null ? 1 : code);
  });
}

run();
