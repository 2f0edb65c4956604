// Copies a text to the clipboard, with a fallback for pages the Clipboard API refuses (plain http).
import { useState } from 'react';
import { TOAST_SMALL_MS } from '../../lib/constants';
import { Icon } from './icons';
import { toast } from './toast';
import { asyncHandler } from '../../lib/async-handler';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

export function CopyButton({
  text,
  label = 'Copy',
  copiedMessage = 'Copied to clipboard',
  className = 'btn btn-secondary btn-sm',
}: {
  text: string;
  label?: string;
  copiedMessage?: string;
  className?: string;
}) {
  const [copied, setCopied] = useState(false);
  async function onClick() {
    if (await copyText(text)) {
      setCopied(true);
      toast.success(copiedMessage, TOAST_SMALL_MS);
      setTimeout(() => setCopied(false), TOAST_SMALL_MS);
    } else {
      toast.error('Could not copy. Select the text and copy it by hand.');
    }
  }
  return (
    <button type="button" className={className} onClick={asyncHandler(onClick)} aria-label={label}>
      <Icon name={copied ? 'check' : 'copy'} size={16} />
      <span aria-hidden="true">{copied ? 'Copied' : 'Copy'}</span>
    </button>
  );
}
