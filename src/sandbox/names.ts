// Caller names as CNAM databases show them: upper case, at most 15 characters, people as
// "LAST FIRST", businesses, wireless numbers that only show a generic label or their city.

const FIRST = `JAMES MARY ROBERT PATRICIA JOHN JENNIFER MICHAEL LINDA DAVID ELIZABETH WILLIAM BARBARA RICHARD SUSAN
JOSEPH JESSICA THOMAS SARAH CHARLES KAREN CHRISTOPHER LISA DANIEL NANCY MATTHEW BETTY ANTHONY SANDRA MARK ASHLEY
DONALD EMILY STEVEN KIMBERLY PAUL DONNA ANDREW MICHELLE JOSHUA CAROL KEVIN AMANDA BRIAN MELISSA GEORGE DEBORAH
MARIA JOSE LUIS ANA CARLOS SOFIA WEI MEI RAJ PRIYA AHMED FATIMA`.split(/\s+/);

const LAST = `SMITH JOHNSON WILLIAMS BROWN JONES GARCIA MILLER DAVIS RODRIGUEZ MARTINEZ HERNANDEZ LOPEZ GONZALEZ WILSON
ANDERSON THOMAS TAYLOR MOORE JACKSON MARTIN LEE PEREZ THOMPSON WHITE HARRIS SANCHEZ CLARK RAMIREZ LEWIS ROBINSON
WALKER YOUNG ALLEN KING WRIGHT SCOTT TORRES NGUYEN HILL FLORES GREEN ADAMS NELSON BAKER HALL RIVERA CAMPBELL
MITCHELL CARTER ROBERTS CHEN PATEL KIM OCONNOR MURPHY COHEN SULLIVAN KOWALSKI`.split(/\s+/);

const BUSINESS = `ACME PLUMBING|BLUE SKY DENTAL|CITY AUTO REPAIR|MAIN ST PHARMACY|SUNRISE REALTY|GREEN LEAF LAWN|
METRO INSURANCE|PIONEER BANK|ALLSTAR ROOFING|HARBOR FAMILY MD|VALLEY VET CLNC|SUMMIT LAW GRP|BRIGHT SMILES|
FIRST CHOICE AC|CORNERSTONE CPA|LAKESIDE MOTORS|GOLDEN DRAGON|PRIME FITNESS|NORTHSTAR LOGIS|RIVERSIDE HOSP|
TRI STATE MOVERS|EAGLE ELECTRIC|OAKWOOD SCHOOLS|COASTAL CREDIT|DELTA PEST CTRL`.split('|').map((s) => s.trim());

/** Names that telemarketers and scammers typically present. */
const SUSPICIOUS = `SPAM LIKELY|SCAM LIKELY|TELEMARKETER|HEALTH BENEFITS|AUTO WARRANTY|SOCIAL SECURITY|TAX RELIEF|
CREDIT SERVICES|UNKNOWN NAME|POTENTIAL SPAM`.split('|').map((s) => s.trim());

const GENERIC = ['WIRELESS CALLER', 'CELL PHONE', 'UNAVAILABLE'];

export type NameKind = 'person' | 'business' | 'place' | 'generic' | 'suspicious';

/** A caller name from hash bits `u` (32-bit unsigned); `city`/`state` for place-style names. */
export function callerName(kind: NameKind, u: number, city: string, state: string): string {
  return rawName(kind, u, city, state).slice(0, 15).trimEnd();
}

function rawName(kind: NameKind, u: number, city: string, state: string): string {
  switch (kind) {
    case 'person': {
      const last = LAST[u % LAST.length] as string;
      const first = FIRST[(u >>> 8) % FIRST.length] as string;
      return `${last} ${first}`;
    }
    case 'business':
      return BUSINESS[u % BUSINESS.length] as string;
    case 'place':
      return `${city.toUpperCase()} ${state}`;
    case 'generic':
      return GENERIC[u % GENERIC.length] as string;
    case 'suspicious':
      return SUSPICIOUS[u % SUSPICIOUS.length] as string;
  }
}
