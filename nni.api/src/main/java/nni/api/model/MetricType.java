package nni.api.model;

/** The {@code type} field of an NNI metric report. */
public enum MetricType {
    /** {@code nni.report_intermediate_result}: one of many, numbered by {@code sequence} */
    PERIODICAL,
    /** {@code nni.report_final_result} */
    FINAL,
    /** multi-phase: the trial asks for parameter set {@code parameter_index}; never stored */
    REQUEST_PARAMETER
}
