/**
 * Check digits of the numbers the pii check reports: a number whose check digit is right is almost certainly the
 * thing it looks like, so near misses (an order number, a typo) are refused. Each takes the digits (and letters)
 * alone, separators already removed.
 */

const digitAt = (text: string, index: number) => text.charCodeAt(index) - 48;

/** Payment cards: the Luhn mod-10 sum. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digitAt(digits, digits.length - 1 - i);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** IBAN: the country and check digits moved to the end, letters as 10..35, the number mod 97 is 1. */
export function passesIbanMod97(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const code = rearranged.charCodeAt(i);
    const value = code >= 65 ? code - 55 : code - 48;
    remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

// Verhoeff's dihedral-group tables (multiplication, permutation, inverse).
const VERHOEFF_D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const VERHOEFF_P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];

/** Indian Aadhaar: Verhoeff's check digit, which catches every single-digit error and adjacent swap. */
export function passesVerhoeff(digits: string): boolean {
  let check = 0;
  for (let i = 0; i < digits.length; i++) {
    const digit = digitAt(digits, digits.length - 1 - i);
    check = VERHOEFF_D[check]![VERHOEFF_P[i % 8]![digit]!]!;
  }
  return check === 0;
}

/** Brazilian CPF: two mod-11 check digits; a run of one repeated digit passes the sums but is not issued. */
export function passesCpf(digits: string): boolean {
  if (digits.length !== 11 || /^(\d)\1{10}$/.test(digits)) return false;
  for (const length of [9, 10]) {
    let sum = 0;
    for (let i = 0; i < length; i++) sum += digitAt(digits, i) * (length + 1 - i);
    const expected = ((sum * 10) % 11) % 10;
    if (expected !== digitAt(digits, length)) return false;
  }
  return true;
}

const DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";

/** Spanish DNI (8 digits and a letter) or NIE (X, Y or Z, 7 digits, a letter): the letter is the number mod 23. */
export function passesSpanishId(id: string): boolean {
  const first = "XYZ".indexOf(id[0]!);
  const number = Number(first >= 0 ? `${first}${id.slice(1, 8)}` : id.slice(0, 8));
  return DNI_LETTERS[number % 23] === id[8];
}

// Italian codice fiscale: odd positions (1st, 3rd…) weigh by this table, indexed by digit or letter.
const CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];

/** Italian codice fiscale (16 characters, upper case): the last letter is a weighted sum mod 26. */
export function passesCodiceFiscale(code: string): boolean {
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    const char = code.charCodeAt(i);
    const index = char <= 57 ? char - 48 : char - 65;
    sum += i % 2 === 0 ? CF_ODD[index]! : index;
  }
  return String.fromCharCode(65 + (sum % 26)) === code[15];
}
