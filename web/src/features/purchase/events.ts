// Fired on window after every successful purchase, so screens showing keys (My Keys) refresh.
export const KEY_PURCHASED_EVENT = 'keyPurchased';

export const announceKeyPurchased = () => window.dispatchEvent(new Event(KEY_PURCHASED_EVENT));
