import { describe, expect, it } from 'vitest';
import { numberPlaceholders } from '../../../src/adapters/postgres/read-models';

describe('portable SQL placeholders, numbered for PostgreSQL', () => {
  it('numbers each ? in order', () => {
    expect(numberPlaceholders('SELECT * FROM t WHERE a = ? AND b IN (?, ?) LIMIT ?')).toBe('SELECT * FROM t WHERE a = $1 AND b IN ($2, $3) LIMIT $4');
  });

  it('leaves question marks in string literals, quoted identifiers and comments alone', () => {
    expect(numberPlaceholders(`SELECT 'why?', 'it''s ?', "col?" FROM t WHERE x = ? -- or ?\nAND y = ?`)).toBe(
      `SELECT 'why?', 'it''s ?', "col?" FROM t WHERE x = $1 -- or ?\nAND y = $2`,
    );
  });

  it('keeps casts attached to the placeholder', () => {
    expect(numberPlaceholders('SELECT jsonb_array_elements_text(?::jsonb)')).toBe('SELECT jsonb_array_elements_text($1::jsonb)');
  });

  it('copes with an unterminated literal without looping', () => {
    expect(numberPlaceholders("SELECT '?")).toBe("SELECT '?");
  });
});
