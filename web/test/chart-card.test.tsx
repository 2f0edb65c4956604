// components/ui/chart-card: the card the analytics' charts and the admin Overview's bar lists share.
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ChartCard } from '../src/components/ui/chart-card';

describe('ChartCard', () => {
  it('is a figure named by its title, whose drawing can be labelled and described by the caption', () => {
    render(
      <ChartCard title="Keys sold per day" summary="12 keys over 7 days." footer={<p>Data table</p>}>
        {(ids) => <svg role="img" aria-labelledby={ids.title} aria-describedby={ids.desc} />}
      </ChartCard>,
    );
    expect(screen.getByRole('figure').textContent).toContain('Data table');
    expect(screen.getByRole('heading', { name: 'Keys sold per day' })).toBeTruthy();
    const drawing = screen.getByRole('img', { name: 'Keys sold per day' });
    expect(document.getElementById(drawing.getAttribute('aria-describedby')!)?.textContent).toBe('12 keys over 7 days.');
  });

  it('holds plain content, with no summary', () => {
    render(
      <ChartCard title="Users by Role">
        <ul aria-label="Bars" />
      </ChartCard>,
    );
    // The caption names the figure (browsers take a figure's name from its figcaption).
    expect(screen.getByRole('figure').querySelector('figcaption')?.textContent).toBe('Users by Role');
    expect(screen.getByRole('list', { name: 'Bars' })).toBeTruthy();
    expect(screen.getByRole('figure').querySelector('p')).toBeNull();
  });
});
