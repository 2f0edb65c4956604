// Business constants and limits, in one place.
export const HTTP_TIMEOUT_MS = 30_000;
export const PROFILE_REFRESH_MS = 60_000;
export const UNAUTHORIZED_REDIRECT_DELAY_MS = 100;
export const MY_KEYS_REFRESH_MS = 30_000;

export const TOAST_DEFAULT_MS = 5000;
export const TOAST_SMALL_MS = 2000;
export const TOAST_PURCHASE_MS = 8000;
export const TOAST_GENERATION_MS = 5000;
export const TOAST_GENERATION_SHORT_MS = 3000;

export const MY_KEYS_PAGE_SIZE = 10;
export const ADMIN_KEYS_PAGE_SIZE = 15;

export const EXPIRY_WARNING_DAYS = 7;
export const DAYS_DANGER = 3;
export const DAYS_WARNING = 7;

export const PRODUCT_CARD_SAMPLE_DAYS = [1, 7, 30, 90] as const;
export const SAMPLE_DAYS = [1, 7, 30] as const;
export const USER_CARD_FEATURES = 4;
export const ADMIN_CARD_FEATURES = 3;

export const DEFAULT_MAX_KEYS_PER_GENERATION = 100;
export const DEFAULT_MIN_DAYS = 1;
export const DEFAULT_MAX_DAYS = 365;
export const DEFAULT_CREDITS_PER_DAY = 10;
export const DEFAULT_MAX_ACTIVATIONS = 1;
export const DEFAULT_EXCHANGE_RATE = 10;

export const TWO_FACTOR_CODE_LENGTH = 6;
export const QUICK_EXCHANGE_AMOUNTS = [1, 5, 10, 25] as const;
export const GENERATION_QUICK_QUANTITIES = [1, 5, 10, 25, 50, 100] as const;
export const SETTINGS_RELOAD_DELAY_MS = 1000;
export const DEVICES_SHOWN = 2;
export const FINGERPRINT_SHOWN_CHARS = 16;
