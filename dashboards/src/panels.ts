import type * as cog from '@grafana/grafana-foundation-sdk/cog'
import {
  BigValueColorMode,
  BigValueGraphMode,
  GraphDrawStyle,
  LegendDisplayMode,
  LegendPlacement,
  ReduceDataOptionsBuilder,
  StackingConfigBuilder,
  StackingMode,
  VizLegendOptionsBuilder,
} from '@grafana/grafana-foundation-sdk/common'
import {
  PieChartLegendOptionsBuilder,
  PieChartLegendValues,
  PanelBuilder as PieChartPanel,
  PieChartType,
} from '@grafana/grafana-foundation-sdk/piechart'
import { PanelBuilder as StatPanel } from '@grafana/grafana-foundation-sdk/stat'
import { PanelBuilder as TablePanel } from '@grafana/grafana-foundation-sdk/table'
import { PanelBuilder as TimeseriesPanel } from '@grafana/grafana-foundation-sdk/timeseries'

// The few panel shapes the dashboards use, with their shared settings.
type Target = cog.Builder<cog.Dataquery>

const tableLegend = () =>
  new VizLegendOptionsBuilder()
    .displayMode(LegendDisplayMode.Table)
    .placement(LegendPlacement.Bottom)
    .showLegend(true)
    .calcs(['mean', 'max'])

export interface TimeseriesOptions {
  unit?: string
  stacked?: boolean
  bars?: boolean
  width?: number
  height?: number
}

export function timeseries(
  title: string,
  description: string,
  targets: Target[],
  options: TimeseriesOptions = {},
) {
  const panel = new TimeseriesPanel()
    .title(title)
    .description(description)
    .targets(targets)
    .unit(options.unit ?? 'short')
    .legend(tableLegend())
    .span(options.width ?? 12)
    .height(options.height ?? 8)
    .fillOpacity(options.stacked ? 60 : 10)
  if (options.stacked) panel.stacking(new StackingConfigBuilder().mode(StackingMode.Normal))
  if (options.bars) panel.drawStyle(GraphDrawStyle.Bars)
  return panel
}

export function stat(title: string, description: string, targets: Target[], unit = 'short', width = 4) {
  return new StatPanel()
    .title(title)
    .description(description)
    .targets(targets)
    .unit(unit)
    .graphMode(BigValueGraphMode.None)
    .colorMode(BigValueColorMode.Value)
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']).values(false))
    .span(width)
    .height(4)
}

export function table(title: string, description: string, targets: Target[], width = 24, height = 10) {
  return new TablePanel().title(title).description(description).targets(targets).span(width).height(height)
}

/** A pie of a (label, count) table: one slice per row. */
export function pie(title: string, description: string, targets: Target[], width = 8) {
  return new PieChartPanel()
    .title(title)
    .description(description)
    .targets(targets)
    .pieType(PieChartType.Donut)
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']).values(true))
    .legend(
      new PieChartLegendOptionsBuilder()
        .displayMode(LegendDisplayMode.Table)
        .placement(LegendPlacement.Right)
        .values([PieChartLegendValues.Value, PieChartLegendValues.Percent])
        .showLegend(true),
    )
    .span(width)
    .height(8)
}
