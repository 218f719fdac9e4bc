import type { Command } from 'commander';
import { registerBootstrap } from './bootstrap';
import { registerImport } from './import';
import { registerKeys } from './keys';
import { registerLog } from './log';
import { registerProjects } from './projects';
import { registerReplay } from './replay';
import { registerVerify } from './verify';

/**
 * Every CLI command, in the order `--help` lists them. A new command is a file in this directory
 * exporting `register<Name>(program)` (options, help text with an example, action) and one line here.
 */
export const commands: ReadonlyArray<(program: Command) => void> = [registerBootstrap, registerKeys, registerProjects, registerImport, registerReplay, registerVerify, registerLog];
