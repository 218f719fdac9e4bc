import { exportSourceContract } from './contract';
import { sqliteEngine } from './sqlite-engine';

exportSourceContract('SQLite', sqliteEngine);
