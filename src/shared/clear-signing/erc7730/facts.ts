/**
 * The registry's reading as facts, shown before the decoded call it sits beside: the intent (interpolated when the
 * descriptor writes one), which descriptor said so, then its fields in order, an inner call's nested under it.
 */
import type { Fact } from '../../describe/types';
import type { DescriptorSection } from './reading';
import type { RenderedOutput } from './types';

function renderedFacts(rendered: RenderedOutput): Fact[] {
  return [
    ...(rendered.owner === '' ? [] : [{ label: 'Owner', value: [{ text: rendered.owner }] }]),
    ...rendered.fields.map(({ label, value }): Fact =>
      typeof value === 'string'
        ? { label: label === '' ? 'Value' : label, value: [{ text: value }] }
        : { label: label === '' ? 'Call' : label, value: [{ text: value.interpolatedIntent ?? value.intent }], children: renderedFacts(value) },
    ),
  ];
}

/** `label`: "Registry reading" for the transaction's own call, lower case under a Safe's call as its other parts are. */
export function descriptorFacts(section: DescriptorSection | undefined, label = 'Registry reading'): Fact[] {
  if (section === undefined) return [];
  if (section.rendered === undefined) {
    return [
      {
        label,
        value: [{ text: `none: a registry descriptor matched but could not read this (${section.problem ?? 'no reason given'})` }],
      },
    ];
  }
  const { rendered } = section;
  return [
    {
      label,
      value: [{ text: rendered.interpolatedIntent ?? rendered.intent }, { text: `described by ${section.describedBy}`, note: true }],
      children: renderedFacts(rendered),
    },
  ];
}
