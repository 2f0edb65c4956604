// How a device that activated a key is shown, in My Keys and in the admin panel alike.
import type { Schemas } from '../../../worker/platform/api-client';
import { visibleText } from '../../../worker/platform/schemas/text';
import { FINGERPRINT_SHOWN_CHARS } from './constants';

type LicenseKey = Schemas['LicenseKey'];

/** The fingerprint's first characters, enough to tell devices apart in a list. */
export const shortFingerprint = (fp: string) => (fp.length > FINGERPRINT_SHOWN_CHARS ? `${fp.slice(0, FINGERPRINT_SHOWN_CHARS)}…` : fp);

/** What the device's software sent, as sent: control and bidi characters are shown as escapes. */
export const deviceName = (d: LicenseKey['activations'][number]) =>
  visibleText([d.deviceInfo?.manufacturer, d.deviceInfo?.model].filter(Boolean).join(' '));
