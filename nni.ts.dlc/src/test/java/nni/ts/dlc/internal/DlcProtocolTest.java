package nni.ts.dlc.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.Test;

import nni.ts.cloud.JobStatus;

public class DlcProtocolTest {

    @Test
    public void theSignedDateHasATwoDigitDayOnTheFirstNineDaysOfAMonth() {
        Clock third = Clock.fixed(Instant.parse("2026-12-03T08:05:09Z"), ZoneOffset.UTC);
        HttpRequest request = new RoaSigner("id", "secret", third)
                .sign("GET", URI.create("https://pai-dlc.cn-hangzhou.aliyuncs.com/api/v1/jobs/dlc1"), null).build();
        assertEquals("Thu, 03 Dec 2026 08:05:09 GMT", request.headers().firstValue("Date").orElseThrow());
    }

    @Test
    public void aStateOutsideDlcsListEndsTheJobWithTheStateNamedAndRestartingStaysAlive() {
        JobStatus submitFailed = DlcApi.status("dlc1", "SubmitFailed", ": quota exceeded");
        assertEquals(JobStatus.Phase.ENDED, submitFailed.phase());
        assertTrue(submitFailed.detail(), submitFailed.detail().contains("PAI-DLC job dlc1 is in state SubmitFailed")
                && submitFailed.detail().endsWith(": quota exceeded"));
        assertTrue(DlcApi.status("dlc1", "Restarting", "").alive());
        assertTrue(DlcApi.status("dlc1", "EnvPreparing", "").alive());
        assertEquals(JobStatus.Phase.ENDED, DlcApi.status("dlc1", "FailedReserving", "").phase());
    }
}
