/**
 * Runs the `reflect-eval` CLI from source (tsx) in a child process, asynchronously: a stub server living in the
 * test process keeps answering while the CLI runs.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(__dirname, '../..');

export function cliAsync(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'src/cli/index.ts'), ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => ok({ code, stdout, stderr }));
  });
}
